// spielwerk web table: lobby, table (Skat, Durak, Kalah), finished games and review.
// The browser only renders what the server sends for its seat and sends the action it chose.
"use strict";

const main = document.getElementById("main");
const msgBox = document.getElementById("msg");
const connEl = document.getElementById("conn");
let ws = null, wsTable = null, current = null, prevView = null, choices = [], selected = -1;
let animating = Promise.resolve();
let msgTimer = null;

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v);
  }
  for (const kid of kids) if (kid != null) el.append(kid);
  return el;
}

function showMessage(text, isError) {
  msgBox.textContent = text;
  msgBox.className = "msg" + (isError ? " error" : "");
  msgBox.hidden = false;
  clearTimeout(msgTimer);
  msgTimer = setTimeout(() => { msgBox.hidden = true; }, isError ? 6000 : 4000);
}

async function api(path, opts) {
  const r = await fetch(path, opts);
  const body = await r.json().catch(() => ({ error: "bad answer from the server" }));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

// ----- routing ---------------------------------------------------------------------
function route() {
  const hash = location.hash.slice(1);
  const params = new URLSearchParams(hash);
  if (params.get("table")) return openTable(params.get("table"));
  closeSocket();
  if (params.get("review")) return openReview(params.get("review"), params.get("analyse") === "1");
  if (hash === "games") return openGames();
  return openLobby();
}
window.addEventListener("hashchange", route);

function closeSocket() {
  if (ws) { ws.onclose = null; ws.close(); }
  ws = null; wsTable = null; current = null; prevView = null; hint = null; hintWaiting = false;
  connEl.textContent = "";
}

// ----- lobby -------------------------------------------------------------------------
let gamesInfo = null;
async function openLobby() {
  main.replaceChildren(h("p", { text: "Loading…" }));
  try { gamesInfo = gamesInfo || (await api("/api/games")).games; }
  catch (e) { showMessage(e.message, true); return; }
  const form = h("form", { id: "newtable" });
  const gameSel = h("select", { id: "game" });
  for (const g of ["skat", "durak", "kalah"]) gameSel.append(h("option", { value: g, text: g }));
  const box = h("div", { id: "gameopts" });
  form.append(h("fieldset", {}, h("legend", { text: "New table" }),
    h("label", {}, "game ", gameSel), box,
    h("div", {}, h("button", { class: "primary", type: "submit", id: "create", text: "sit down" }))));
  const render = () => renderGameOptions(box, gameSel.value);
  gameSel.addEventListener("change", render);
  render();
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const body = collectOptions(gameSel.value);
      const r = await api("/api/tables", { method: "POST", headers: { "content-type": "application/json" },
                                           body: JSON.stringify(body) });
      location.hash = "table=" + r.id;
    } catch (e) { showMessage(e.message, true); }
  });
  const list = h("div", {});
  main.replaceChildren(form, h("h3", { text: "Your tables" }), list);
  try {
    const t = (await api("/api/tables")).tables;
    if (!t.length) list.append(h("p", { text: "none yet" }));
    for (const row of t) list.append(h("div", {}, h("a", { href: "#table=" + row.id,
      text: row.spec + " — vs " + row.opponents.filter(Boolean).join(", ") })));
  } catch (e) { showMessage(e.message, true); }
}

const PRESETS = { classic: "classic (podkidnoy)", perevodnoy: "perevodnoy (transfers)",
                  zarlykov2023: "Zarlykov 2023 (2 players, 36 cards)" };
function numInput(id, value, min, max) {
  return h("input", { id, type: "number", value, min, max, step: "any", style: "width:4.5em" });
}
function renderGameOptions(box, game) {
  const info = gamesInfo[game];
  const parts = [];
  if (game === "kalah") {
    // the ranges come from the server (probed on the rules and the chosen opponent)
    parts.push(h("label", {}, "pits ", numInput("opt-pits", 6, 1, 6)),
               h("label", {}, "seeds ", numInput("opt-seeds", 4, 1, 4)),
               h("label", {}, h("input", { id: "opt-empty_capture", type: "checkbox" }), " empty capture"));
  } else if (game === "durak") {
    const sel = h("select", { id: "opt-preset" });
    for (const [k, v] of Object.entries(PRESETS)) sel.append(h("option", { value: k, text: v }));
    const deck = h("select", { id: "opt-deck" });
    for (const d of [36, 24, 52]) deck.append(h("option", { value: d, text: d + " cards" }));
    parts.push(h("label", {}, "preset ", sel), h("label", {}, "players ", numInput("opt-players", 2, 2, 6)),
               h("label", {}, "deck ", deck));
  } else {
    parts.push(h("label", {}, h("input", { id: "opt-ramsch", type: "checkbox" }), " Ramsch when all pass"));
  }
  parts.push(h("label", {}, "your name ", h("input", { id: "opt-name", maxlength: 24, placeholder: "you", style: "width:8em" })),
             h("label", {}, "your seat ", numInput("opt-seat", 0, 0, 5)),
             h("label", {}, "seconds per engine move ", numInput("opt-time", 2, 0.05, 60)));
  const opp = h("div", { id: "opponents" });
  const drawOpp = () => {
    const n = game === "skat" ? 3 : game === "kalah" ? 2 : Number(document.getElementById("opt-players").value) || 2;
    opp.replaceChildren(h("span", { text: "opponents: " }));
    for (let i = 0; i < n - 1; i++) {
      const s = h("select", { class: "opp", id: "opp-" + i });
      for (const a of info.agents) s.append(h("option", { value: a.name, text: a.name + " — " + a.description }));
      s.value = info.default_opponent;
      const spec = h("input", { class: "oppspec", id: "oppspec-" + i, placeholder: "or a spec, e.g. " +
        (game === "kalah" ? "perfect:egdb=16" : game === "skat" ? "pimc:worlds=32" : "mcts:worlds=20"),
        style: "width:14em" });
      opp.append(s, spec);
    }
  };
  box.replaceChildren(...parts, opp);
  drawOpp();
  const pl = document.getElementById("opt-players");
  if (pl) pl.addEventListener("change", drawOpp);
  if (info.limits) {
    const apply = () => applyLimits(info);
    box.addEventListener("change", apply);
    box.addEventListener("input", apply);
    apply();
  }
}
// Keep the number fields within what the chosen opponent plays (info.limits, per agent).
function applyLimits(info) {
  const sel = document.getElementById("opp-0"), spec = document.getElementById("oppspec-0");
  const name = ((spec && spec.value.trim()) || (sel && sel.value) || info.default_opponent).split(":")[0];
  const lim = info.limits[name] || info.limits[info.default_opponent];
  const pits = document.getElementById("opt-pits"), seeds = document.getElementById("opt-seeds");
  if (!lim || !pits || !seeds) return;
  const clamp = (el, lo, hi) => {
    el.min = lo; el.max = hi;
    const v = Number(el.value);
    if (el.value !== "" && (v < lo || v > hi)) el.value = Math.max(lo, Math.min(hi, v));
  };
  clamp(pits, lim.pits.min, lim.pits.max);
  clamp(seeds, lim.seeds.min, lim.seeds.max_by_pits[String(Number(pits.value))] || lim.seeds.min);
}
function collectOptions(game) {
  const val = (id) => document.getElementById(id);
  const params = {};
  if (game === "kalah") {
    params.pits = Number(val("opt-pits").value); params.seeds = Number(val("opt-seeds").value);
    params.empty_capture = val("opt-empty_capture").checked;
  } else if (game === "durak") {
    params.preset = val("opt-preset").value; params.players = Number(val("opt-players").value);
    params.deck = Number(val("opt-deck").value);
  } else params.ramsch = val("opt-ramsch").checked;
  const opponents = [...document.querySelectorAll("select.opp")].map((s, i) => {
    const spec = document.getElementById("oppspec-" + i).value.trim();
    return spec || s.value;
  });
  const seat = Number(val("opt-seat").value), name = val("opt-name").value.trim();
  const body = { game, params, seat, opponents, time: Number(val("opt-time").value) };
  if (name) { body.names = new Array(opponents.length + 1).fill(null); body.names[seat] = name; }
  return body;
}

// ----- the table ---------------------------------------------------------------------
function openTable(id) {
  if (wsTable === id && ws) return;
  closeSocket();
  wsTable = id;
  main.replaceChildren(h("p", { text: "Connecting…" }));
  connect(id);
}

function connect(id) {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const sock = new WebSocket(proto + "://" + location.host + "/ws/" + id);
  ws = sock;
  connEl.textContent = "connecting…";
  sock.onopen = () => { connEl.textContent = "connected"; };
  sock.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "view") { animating = animating.then(() => showView(m)); }
    else if (m.type === "thinking") { animating = animating.then(() => setThinking(m.seat)); }
    else if (m.type === "hint") { animating = animating.then(() => { hint = m; hintWaiting = false; if (current) render(); }); }
    else if (m.type === "error") { hintWaiting = false; showMessage(m.message, true); }
    else if (m.type === "notice") showMessage(m.message, false);
  };
  sock.onclose = (ev) => {
    if (ws !== sock) return;
    if (ev.code === 4404 || ev.code === 4409 || ev.code === 4500) {
      connEl.textContent = ev.code === 4409 ? "table damaged" : "no such table"; ws = null; return;
    }
    connEl.textContent = "reconnecting…";
    setTimeout(() => { if (ws === sock && wsTable === id) connect(id); }, 1000);
  };
}

function send(obj) {
  if (!ws || ws.readyState !== WebSocket.OPEN) { showMessage("not connected — reconnecting", true); return; }
  ws.send(JSON.stringify(obj));
}
function act(id) { send({ type: "act", action: id, ply: current.view.ply }); }

function setThinking(seat) {
  const el = document.getElementById("thinking");
  if (el) { el.textContent = "seat " + seat + " is thinking…"; el.className = "thinking"; }
  if (current) current.thinking = seat;
  const felt = document.getElementById("felt");
  if (felt && felt.dataset.turn !== "over") felt.dataset.turn = "other";
  document.querySelectorAll(".seatbox").forEach((b) => b.classList.toggle("tomove", Number(b.dataset.seat) === seat));
}

async function showView(m) {
  const old = current;
  current = m;
  const v = m.view;
  if (v.game === "kalah" && old && old.view.game === "kalah" && m.last && m.last.action != null &&
      old.view.ply + 1 === v.ply && !old.view.over) {
    await animateSowing(old.view, m.last.seat, m.last.action, v);
  }
  render();
}

function render() {
  const m = current, v = m.view;
  choices = []; selected = -1;
  const head = h("div", { class: "info" },
    h("strong", { text: v.game + " — " + v.spec }),
    h("span", { text: "you are seat " + v.seat }),
    h("span", { id: "thinking", class: m.thinking != null ? "thinking" : "",
                text: m.thinking != null ? "seat " + m.thinking + " is thinking…" :
                  (v.over ? "game over" : (v.to_move === v.seat ? "your turn" : "")) }));
  const felt = h("div", { class: "felt", id: "felt" });
  felt.dataset.ply = v.ply;
  felt.dataset.turn = v.over ? "over" : (v.to_move === v.seat && m.thinking == null ? "me" : "other");
  if (v.game === "kalah") renderKalah(felt, v);
  else if (v.game === "skat") renderSkat(felt, v, m);
  else renderDurak(felt, v, m);
  const last = m.last ? h("div", { class: "label", id: "last", text: "last: " + (m.last.seat === v.seat ? "you" : playerName(m, m.last.seat)) + " — " + m.last.label }) : null;
  main.replaceChildren(head, felt, last || "", renderOver(m));
}

function addChoice(el, id) {
  const n = choices.length;
  choices.push({ el, id });
  el.dataset.key = n < 9 ? String(n + 1) : n === 9 ? "0" : "";
  if (n < 10) el.title = "key " + el.dataset.key;
}

document.addEventListener("keydown", (ev) => {
  if (!current || ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
  if (/^[0-9]$/.test(ev.key)) {
    const i = ev.key === "0" ? 9 : Number(ev.key) - 1;
    if (i < choices.length) {
      choices.forEach((c) => c.el.classList.remove("sel"));
      selected = i; choices[i].el.classList.add("sel"); ev.preventDefault();
    }
  } else if (ev.key === "Enter" && selected >= 0 && selected < choices.length) {
    ev.preventDefault();
    const c = choices[selected];
    if (c.id == null) c.el.click(); else act(c.id);
  }
});

function seatName(v, s, m) {
  return (s === v.seat ? "you" : playerName(m, s)) + (m.table.names ? "" : " (seat " + s + ")");
}

// ----- Kalah
function kalahCells(v) {
  // board as the kernel lays it out: South pits, South store, North pits, North store
  return [...v.south, v.stores[0], ...v.north, v.stores[1]];
}
function renderKalah(felt, v, boardOverride, highlight) {
  const m = v.pits;
  const cells = boardOverride || kalahCells(v);
  const me = v.seat, opp = 1 - me;
  const mine = (i) => me * (m + 1) + i, theirs = (i) => opp * (m + 1) + i;
  const legal = new Set((v.legal || []).map((a) => a.id));
  const grid = h("div", { class: "kalah", id: "kalah" });
  grid.style.gridTemplateColumns = "auto repeat(" + m + ", auto) auto";
  const storeOpp = h("div", { class: "store", id: "store-" + opp, text: cells[opp * (m + 1) + m] });
  const storeMe = h("div", { class: "store", id: "store-" + me, text: cells[me * (m + 1) + m] });
  storeOpp.style.gridColumn = "1"; storeMe.style.gridColumn = String(m + 2);
  grid.append(storeOpp);
  for (let c = 0; c < m; c++) {  // opponent's pits, right to left from our view
    const i = m - 1 - c;
    const el = h("div", { class: "pit", id: "pit-" + opp + "-" + i, text: cells[theirs(i)] });
    el.style.gridRow = "1"; el.style.gridColumn = String(c + 2);
    if (highlight === theirs(i)) el.classList.add("drop");
    grid.append(el);
  }
  grid.append(storeMe);
  for (let i = 0; i < m; i++) {
    const el = h("button", { class: "pit", id: "pit-" + me + "-" + i, text: cells[mine(i)],
                             "aria-label": "pit " + (i + 1) });
    el.style.gridRow = "2"; el.style.gridColumn = String(i + 2);
    if (highlight === mine(i)) el.classList.add("drop");
    if (legal.has(i)) el.classList.add("legal");
    if (!boardOverride) { el.addEventListener("click", () => act(i)); addChoice(el, i); }
    grid.append(el);
  }
  const lo = h("div", { class: "storelabel", text: "opponent's store" }), lm = h("div", { class: "storelabel", text: "your store" });
  lo.style.gridColumn = "1"; lo.style.gridRow = "3"; lm.style.gridColumn = String(m + 2); lm.style.gridRow = "3";
  grid.append(lo, lm);
  const labels = h("div", { class: "row center" });
  felt.replaceChildren(
    h("div", { class: "label", text: "opponent (" + ["South", "North"][opp] + ")" }), grid,
    h("div", { class: "label", text: "you (" + ["South", "North"][me] + "): pits 1–" + m + " from your left; " +
      (v.empty_capture ? "empty capture" : "standard capture") }), labels);
}
function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
async function animateSowing(before, mover, pit, after) {
  const m = before.pits;
  const cells = kalahCells(before);
  let pos = mover * (m + 1) + pit;
  let seeds = cells[pos];
  cells[pos] = 0;
  const felt = document.getElementById("felt");
  if (!felt) return;
  const opponentStore = (1 - mover) * (m + 1) + m;
  const step = Math.max(25, Math.min(140, 1400 / Math.max(1, seeds)));
  renderKalah(felt, before, cells.slice(), pos);
  while (seeds > 0) {
    pos = (pos + 1) % (2 * m + 2);
    if (pos === opponentStore) continue;
    cells[pos] += 1; seeds -= 1;
    renderKalah(felt, before, cells.slice(), pos);
    await sleep(step);
  }
  await sleep(120);
}

// ----- Skat
function renderSkat(felt, v, m) {
  const others = [];
  for (let s = 0; s < v.players; s++) {
    if (s === v.seat) continue;
    const box = h("div", { class: "seatbox" + (v.to_move === s ? " tomove" : ""), "data-seat": s },
      h("div", { text: seatName(v, s, m) + " — " + v.positions[s] + (v.declarer === s ? " — declarer" : "") }),
      h("div", { class: "label", text: v.hand_sizes[s] + " cards, " + v.tricks[s] + " tricks" }));
    if (v.declarer === s && v.declarer_cards) {
      const row = h("div", { class: "row" });
      for (const c of v.declarer_cards) row.append(cardEl(c, { small: true }));
      box.append(h("div", { class: "label", text: "open cards:" }), row);
    }
    others.push(box);
  }
  const trick = h("div", { class: "row center trick", id: "trick" });
  v.trick.forEach((c, i) => trick.append(h("div", {}, cardEl(c), h("div", { class: "label", text: "seat " + v.trick_seats[i] }))));
  const info = h("div", { class: "info" },
    h("span", { id: "phase", text: "phase: " + v.phase }),
    h("span", { text: "bid: " + (v.bid || "—") }),
    v.declarer >= 0 ? h("span", { text: "declarer: " + seatShort(v, v.declarer, m) }) : null,
    v.contract ? h("span", { id: "contract", text: "game: " + v.contract }) : null,
    h("span", { id: "points", text: skatPointsText(v, m) }),
    h("span", { text: "you: " + v.positions[v.seat] }));
  let lastTrick = null;
  if (v.last_trick) {
    const row = h("div", { class: "row", id: "lasttrick" }, h("span", { class: "label", text: "last trick (" + seatShort(v, v.last_trick.winner, m) + " won): " }));
    v.last_trick.cards.forEach((c, i) => row.append(h("div", { class: "played" }, cardEl(c, { small: true }),
      h("div", { class: "label", text: seatShort(v, v.last_trick.seats[i], m) }))));
    if (v.tricks_played && v.tricks_played.length > 1) {
      const btn = h("button", { id: "showtricks", text: "all tricks (" + v.tricks_played.length + ")" });
      btn.addEventListener("click", () => { showTricks = !showTricks; render(); });
      row.append(btn);
    }
    lastTrick = row;
  }
  const history = biddingHistory(v, m);
  let skatRow = null;
  if (v.skat && v.skat.length && !v.over) {
    skatRow = h("div", { class: "row" }, h("span", { class: "label", text: "skat: " }));
    for (const c of v.skat) skatRow.append(cardEl(c, { small: true }));
    if (v.put && v.put.length) {
      skatRow.append(h("span", { class: "label", text: " put away: " }));
      for (const c of v.put) skatRow.append(cardEl(c, { small: true }));
    }
  }
  const controls = h("div", { class: "controls", id: "controls" });
  const legalCards = new Set();
  const bids = [], groups = {};
  for (const a of v.legal) {
    if (a.kind === "card") legalCards.add(a.id);
    else if (a.kind === "bid") bids.push(a);
    else (groups[a.kind] = groups[a.kind] || []).push(a);
  }
  const hand = h("div", { class: "row center hand", id: "hand" });
  v.hand.forEach((c, i) => {
    const id = v.hand_ids[i];
    const el = cardEl(c, { button: true });
    if (legalCards.has(id)) { el.classList.add("legal"); addChoice(el, id); }
    el.addEventListener("click", () => act(id));  // the server refuses illegal cards
    hand.append(el);
  });
  if (v.phase === "put" && v.puts_left) controls.append(h("span", { text: "put " + v.puts_left + " card(s) into the skat: click them" }));
  if (bids.length) {
    const sel = h("select", { id: "bidvalue" });
    for (const b of bids) sel.append(h("option", { value: b.id, text: b.label }));
    const g = h("div", { class: "group" }, h("span", { text: "bid " }));
    for (const b of bids.slice(0, 3)) {
      const btn = h("button", { class: "act", "data-action": b.id, text: b.label, onclick: () => act(b.id) });
      addChoice(btn, b.id); g.append(btn);
    }
    g.append(sel, h("button", { id: "bidbtn", text: "say", onclick: () => act(Number(sel.value)) }));
    controls.append(g);
  }
  const myTurn = !v.over && v.to_move === v.seat && m.thinking == null && v.legal.length;
  if (myTurn && m.table && m.table.id) {
    const hb = h("button", { id: "hintbtn", text: hintWaiting ? "working out a hint…" : "hint" });
    hb.disabled = hintWaiting || (hint && hint.ply === v.ply);
    hb.addEventListener("click", () => { hintWaiting = true; hb.disabled = true; hb.textContent = "working out a hint…"; send({ type: "hint" }); });
    controls.append(hb);
  }
  if (m.table.can_undo) {
    const undo = h("button", { id: "undo", class: "act", text: "take back the last put card", onclick: () => send({ type: "undo" }) });
    controls.append(h("div", { class: "group" }, undo));
  }
  if (groups.declare) controls.append(gameSelector(groups.declare));
  const titles = { answer: "", skat: "", claim: "", resign: "" };
  for (const kind of ["answer", "skat", "claim", "resign"]) {
    if (!groups[kind]) continue;
    const g = h("div", { class: "group" }, titles[kind] ? h("span", { text: titles[kind] }) : null);
    for (const a of groups[kind]) {
      const btn = h("button", { class: "act", "data-action": a.id, text: a.label, onclick: () => act(a.id) });
      addChoice(btn, a.id); g.append(btn);
    }
    controls.append(g);
  }
  if (legalCards.size) hand.classList.add("choose");
  const hintBox = hint && hint.ply === v.ply ? renderHint(hint.hint, hand) : null;
  felt.replaceChildren(h("div", { class: "row center" }, ...others), info, history || "", skatRow || "", trick, lastTrick || "",
    showTricks ? tricksTable(v, m) : "", controls, hintBox || "",
    h("div", { class: "label", text: "your hand" + (legalCards.size ? " (legal cards raised)" : "") }), hand);
}
let showTricks = false;
let hint = null, hintWaiting = false;
function pct(x) { return Math.round(100 * x) + "%"; }
// A hint from the server (worked out from what this seat knows): engine choice and numbers.
function renderHint(x, hand) {
  const box = h("div", { class: "hint", id: "hint" });
  if (x.kind === "none") { box.textContent = x.text; return box; }
  if (x.kind === "bid") {
    box.append(h("div", { text: "engine: " + x.engine + (x.game ? " — its game " + x.game + ", bids up to " + x.max_bid : " — it would not declare") }));
    const t = h("table", { class: "list" }, h("tr", {}, h("th", { text: "game" }), h("th", { text: "value" }), h("th", { text: "expected list score" })));
    for (const o of x.options) t.append(h("tr", {}, h("td", { text: o.game, style: "text-align:left" }), h("td", { text: o.value }), h("td", { text: o.expected })));
    box.append(t);
    return box;
  }
  if (x.kind === "put") {
    box.append(h("div", { text: "engine: " + x.engine + " — its game " + x.game + ", put " + x.put.join(" ") }));
    const t = h("table", { class: "list" }, h("tr", {}, h("th", { text: "game" }), h("th", { text: "put" }), h("th", { text: "neighbours' value" }), h("th", { text: "win chance" }), h("th", { text: "expected list score" })));
    for (const o of x.options) t.append(h("tr", {}, h("td", { text: o.game, style: "text-align:left" }), h("td", { text: o.put.join(" ") }), h("td", { text: o.value }), h("td", { text: pct(o.win) }), h("td", { text: o.expected })));
    box.append(t);
    return box;
  }
  if (x.forced) { box.textContent = "only one card can be played: " + x.forced; return box; }
  const what = x.null ? (x.declarer ? "the declarer's goal (no trick)" : "the defenders' goal (a declarer trick)") : (x.declarer ? "your goal" : "the defenders' goal");
  box.append(h("div", { text: "PIMC over " + x.worlds + " worlds you cannot rule out: share of worlds where " + what +
    " is still reached after the card; " + (x.null ? "expected defenders' tricks" : "expected final card points of your side") + " over " + x.point_worlds + " worlds" }));
  const rc = h("tr", {}, h("th", { text: "card" })), rw = h("tr", {}, h("th", { text: "win share" })),
    rp = h("tr", {}, h("th", { text: x.null ? "defenders' tricks" : "your side's points" }));
  const t = h("table", { class: "list", id: "hinttable" }, rc, rw, rp);
  for (const o of x.cards) {
    rc.append(h("td", {}, cardEl(o.card, { small: true })));
    rw.append(h("td", { text: pct(o.win) }));
    rp.append(h("td", { text: o.points }));
    const el = hand && hand.querySelector('[data-card="' + o.card + '"]');
    if (el) { el.dataset.hint = pct(o.win); el.title = "win share " + pct(o.win) + ", points " + o.points; }
  }
  box.append(t);
  return box;
}
const GAME_TEXT = { clubs: "\u2663 clubs", spades: "\u2660 spades", hearts: "\u2665 hearts", diamonds: "\u2666 diamonds", grand: "grand", null: "null" };
const FLAGS = ["hand", "schneider", "schwarz", "ouvert"];
// One selector for the declarations: the game, then the announcements the rules allow for it.
function gameSelector(decls) {
  const box = h("div", { class: "group", id: "gamesel" }, h("span", { text: "declare: " }));
  const sel = h("select", { id: "gametype" });
  const games = [...new Set(decls.map((a) => a.decl.game))];
  for (const g of ["clubs", "spades", "hearts", "diamonds", "grand", "null"]) if (games.includes(g)) sel.append(h("option", { value: g, text: GAME_TEXT[g] }));
  box.append(sel);
  const checks = {};
  for (const f of FLAGS) {
    checks[f] = h("input", { type: "checkbox", id: "ann-" + f });
    box.append(h("label", { class: "ann" }, checks[f], " " + f));
  }
  const btn = h("button", { class: "act primary", id: "declare", text: "declare" });
  const what = h("span", { class: "label", id: "declwhat" });
  box.append(btn, what);
  const match = () => decls.find((a) => a.decl.game === sel.value && FLAGS.every((f) => a.decl[f] === checks[f].checked));
  const update = (changed) => {
    const mine = decls.filter((a) => a.decl.game === sel.value);
    // the rules' implications: ouvert (not null) needs schwarz, schwarz needs schneider, both need hand
    if (changed === "ouvert" && checks.ouvert.checked && sel.value !== "null") { checks.schwarz.checked = checks.schneider.checked = checks.hand.checked = true; }
    if (changed === "schwarz" && checks.schwarz.checked) { checks.schneider.checked = checks.hand.checked = true; }
    if (changed === "schneider" && checks.schneider.checked) checks.hand.checked = true;
    if (changed === "hand" && !checks.hand.checked) { checks.schneider.checked = checks.schwarz.checked = false; if (sel.value !== "null") checks.ouvert.checked = false; }
    for (const f of FLAGS) {
      const can = new Set(mine.map((a) => a.decl[f]));
      checks[f].disabled = can.size < 2;
      if (can.size === 1) checks[f].checked = [...can][0];
    }
    const a = match();
    btn.disabled = !a;
    what.textContent = a ? " " + a.label : " (not allowed)";
  };
  sel.addEventListener("change", () => { for (const f of FLAGS) checks[f].checked = false; update(null); });
  for (const f of FLAGS) checks[f].addEventListener("change", () => update(f));
  btn.addEventListener("click", () => { const a = match(); if (a) act(a.id); });
  addChoice(btn, null);
  btn.dataset.declare = "1";
  update(null);
  return box;
}
function seatShort(v, s, m) {
  return s === v.seat ? "you" : playerName(m, s);
}
function playerName(m, s) {
  const names = m.table.names;
  if (names && names[s]) return names[s];
  return s === m.table.seat ? "you" : (m.table.agents[s] || "seat " + s) + " (seat " + s + ")";
}
function skatPointsText(v, m) {
  const p = v.card_points;
  if (p.by_seat) return "card points: " + v.positions.map((pos, s) => pos === "dealer" ? null : seatShort(v, s, m) + " " + p.by_seat[s]).filter(Boolean).join(", ");
  if (v.declarer < 0) return "card points: —";
  const skat = p.skat != null ? " (skat " + p.skat + " included)" : (v.over ? "" : " + the skat");
  return "card points: declarer " + p.declarer + skat + ", defenders " + p.defenders;
}
function biddingHistory(v, m) {
  if (!v.bidding || !v.bidding.length) return null;
  const row = h("div", { class: "row bidding", id: "bidding" }, h("span", { class: "label", text: "bidding: " }));
  for (const b of v.bidding) row.append(h("span", { class: "say", text: seatShort(v, b.seat, m) + " " + b.say }));
  return row;
}
function tricksTable(v, m) {
  const t = h("table", { class: "list", id: "tricks" });
  t.append(h("tr", {}, h("th", { text: "trick" }), h("th", { text: "cards (who played)" }), h("th", { text: "won by" }), h("th", { text: "points" })));
  v.tricks_played.forEach((tr, i) => {
    const cards = h("td", { style: "text-align:left" });
    tr.cards.forEach((c, j) => cards.append(h("span", { class: "played" }, cardEl(c, { small: true }), h("span", { class: "label", text: seatShort(v, tr.seats[j], m) }))));
    t.append(h("tr", {}, h("td", { text: i + 1 }), cards, h("td", { text: seatShort(v, tr.winner, m) }), h("td", { text: tr.points })));
  });
  return t;
}

// ----- Durak
function renderDurak(felt, v, m) {
  const others = [];
  for (let s = 0; s < v.players; s++) {
    if (s === v.seat) continue;
    const role = s === v.attacker ? " — attacker" : s === v.defender ? " — defender" : "";
    const box = h("div", { class: "seatbox" + (v.to_move === s ? " tomove" : ""), "data-seat": s },
      h("div", { text: seatName(v, s, m) + role }), h("div", { class: "label", text: v.hand_sizes[s] + " cards" }));
    if (v.known[s] && v.known[s].length) {
      const row = h("div", { class: "row" });
      for (const c of v.known[s]) row.append(cardEl(c, { small: true }));
      box.append(h("div", { class: "label", text: "known:" }), row);
    }
    others.push(box);
  }
  const stock = h("div", { class: "row", id: "stock" }, h("span", { class: "label", text: "trump " }),
    cardEl(v.trump_card, { small: true }),
    h("span", { class: "label", text: " stock " + v.stock + " · discarded " + v.discarded }));
  const open = new Set(v.open);
  // each defending card lies over the attack card it beats (the pairs come from the server)
  const attack = h("div", { class: "row center trick", id: "attack" }, h("span", { class: "label", text: v.attack.length ? "table: " : "" }));
  const pairs = v.pairs || v.attack.map((c) => [c, null]);
  for (const [a, d] of pairs) {
    const el = cardEl(a);
    if (open.has(a)) el.classList.add("open");
    const pair = h("div", { class: "pair", "data-attack": a }, el);
    if (d) { const dc = cardEl(d); dc.classList.add("cover"); pair.dataset.defence = d; pair.append(dc); }
    attack.append(pair);
  }
  const defence = h("div", { id: "defence", hidden: "" });
  for (const c of v.defence) defence.append(cardEl(c));
  const role = v.seat === v.attacker ? "attacker" : v.seat === v.defender ? "defender" : "thrower-in";
  const info = h("div", { class: "info" }, h("span", { id: "phase", text: "phase: " + v.phase }),
    h("span", { text: "you: " + role }), h("span", { text: "trump suit " + SUIT_SYMBOL[v.trump_suit] }));
  const controls = h("div", { class: "controls", id: "controls" });
  const single = {};  // card -> action id of the one single-card action for it
  for (const a of v.legal) {
    if ((a.kind === "defend" || a.kind === "throw" || a.kind === "lead") && a.cards.length === 1 && single[a.cards[0]] === undefined) single[a.cards[0]] = a.id;
  }
  const hand = h("div", { class: "row center hand", id: "hand" });
  const trump = "CDHS".indexOf(v.trump_suit);
  for (const c of v.hand) {
    const el = cardEl(c, { button: true });
    if (single[c] !== undefined) { el.classList.add("legal"); addChoice(el, single[c]); }
    el.addEventListener("click", () => act(single[c] !== undefined ? single[c] : durakNaturalAction(v, c)));
    hand.append(el);
  }
  if (Object.keys(single).length) hand.classList.add("choose");
  for (const a of v.legal) {
    if ((a.kind === "defend" || a.kind === "throw" || a.kind === "lead") && a.cards.length === 1 && single[a.cards[0]] === a.id) continue;
    const btn = h("button", { class: "act", "data-action": a.id, text: a.label, onclick: () => act(a.id) });
    addChoice(btn, a.id); controls.append(btn);
  }
  felt.replaceChildren(h("div", { class: "row center" }, ...others), info, stock, attack, defence, controls,
    h("div", { class: "label", text: "your hand (legal cards raised)" }), hand);
}
function durakNaturalAction(v, name) {
  // the action a click on this card would mean in this phase (the server refuses it if illegal)
  const card = "23456789TJQKA".indexOf(name[1]) * 4 + "CDHS".indexOf(name[0]);
  if (v.phase === "defend") return 320 + card;
  if (v.phase === "lead") return (card >> 2) * 16 + (1 << (card & 3));
  return 256 + card;
}

// ----- end of a game
function renderOver(m) {
  const v = m.view;
  const box = h("div", { id: "over" });
  if (m.table.series && m.table.series.length) box.append(seriesTable(m));
  if (!v.over) return box;
  const res = h("div", { class: "result", id: "result" });
  let text = "";
  if (v.game === "skat") {
    text = v.result ? v.result.text : "game over";
    if (v.result && !v.result.passed) text += " — game value " + v.result.value + ", card points " + v.result.declarer_points;
    if (v.ramsch_result) {
      const r = v.ramsch_result;
      const pts = Object.entries(r.points).map(([s, p]) => seatShort(v, Number(s), m) + " " + p).join(", ");
      text = r.durchmarsch >= 0 ? "Ramsch: " + seatShort(v, r.durchmarsch, m) + " took every trick (Durchmarsch, +120)" :
        r.losers.length ? "Ramsch: " + r.losers.map((s) => seatShort(v, s, m)).join(" and ") + (r.losers.length === 1 && r.losers[0] === v.seat ? " lose " : " lost ") +
          r.loss + (r.jungfrau ? " (Jungfrau: doubled)" : "") + " — card points " + pts : "Ramsch: " + pts;
    }
  } else if (v.game === "kalah") {
    const d = v.returns[v.seat];
    text = d > 0 ? "you win by " + d : d < 0 ? "you lose by " + (-d) : "draw";
    text += " (your store " + v.stores[v.seat] + " : opponent's store " + v.stores[1 - v.seat] + ")";
  } else {
    text = v.loser == null || v.loser < 0 ? "draw" : v.loser === v.seat ? "you are the durak" : "seat " + v.loser + " is the durak";
  }
  res.append(h("h3", { text }));
  if (v.reveal && v.reveal.dealt) {
    for (let s = 0; s < v.reveal.dealt.length; s++) {
      const row = h("div", { class: "row" }, h("span", { class: "label", text: seatShort(v, s, m) + " (seat " + s + ") was dealt: " }));
      for (const c of v.reveal.dealt[s]) row.append(cardEl(c, { small: true }));
      res.append(row);
    }
    const row = h("div", { class: "row", id: "revealskat" }, h("span", { class: "label", text: "skat: " }));
    for (const c of v.reveal.skat) row.append(cardEl(c, { small: true }));
    if (v.reveal.put) {
      row.append(h("span", { class: "label", text: " put away by the declarer: " }));
      for (const c of v.reveal.put) row.append(cardEl(c, { small: true }));
    }
    res.append(row);
  }
  const gid = m.table.game_id;
  const links = h("div", { class: "controls" });
  const next = h("button", { class: "primary", id: "next", text: v.game === "skat" ? "next deal" : "new game",
                             onclick: () => send({ type: "next" }) });
  addChoice(next, null);
  links.append(next);
  if (gid != null) {
    if (v.game === "skat" && v.result && !v.result.passed) links.append(h("a", { href: "#review=" + gid + "&analyse=1", id: "analyselink", text: "analyse this deal" }), " · ");
    links.append(h("a", { href: "#review=" + gid, text: "review this game" }), " · ",
      h("a", { href: "/api/games/" + gid + "/record.json", text: "download JSON record" }));
    if (m.table.iss) links.append(" · ", h("a", { href: "/api/games/" + gid + "/record.sgf", text: "download ISS record" }));
  }
  res.append(links);
  box.prepend(res);
  return box;
}
function seriesTable(m) {
  // the list: per deal the declarer, the game, its value and each seat's running total
  const n = m.table.series[0].sf.length;
  const t = h("table", { class: "list", id: "series" });
  const head = h("tr", {}, h("th", { text: "deal" }), h("th", { text: "declarer" }), h("th", { text: "game" }), h("th", { text: "value" }));
  for (let s = 0; s < n; s++) head.append(h("th", { text: s === m.table.seat ? "you" : playerName(m, s) }));
  t.append(head);
  const run = new Array(n).fill(0);
  for (const e of m.table.series) {
    const dec = e.declarer == null || e.declarer < 0 ? "—" : (e.declarer === m.table.seat ? "you" : playerName(m, e.declarer));
    const game = e.game != null ? e.game + (e.won === true ? " won" : e.won === false ? " lost" : "") : e.text;
    const r = h("tr", { title: e.text }, h("td", { text: e.deal }), h("td", { text: dec }),
      h("td", { text: game, style: "text-align:left" }), h("td", { text: e.value != null ? e.value : "" }));
    e.sf.forEach((p, s) => { run[s] += p; r.append(h("td", { text: fmtPoints(run[s]) + " (" + (p > 0 ? "+" : "") + fmtPoints(p) + ")" })); });
    t.append(r);
  }
  const tot = h("tr", {}, h("th", { text: "" }), h("th", { text: "" }), h("th", { text: "total (Seeger-Fabian)" }), h("th", { text: "" }));
  for (const p of m.table.totals) tot.append(h("th", { text: fmtPoints(p) }));
  t.append(tot);
  return h("div", { class: "result" }, h("strong", { text: "list" }), t);
}
function fmtPoints(x) { return Number.isInteger(x) ? String(x) : x.toFixed(1); }

// ----- finished games, upload, review
async function openGames() {
  const list = h("div", { id: "gamelist" });
  const file = h("input", { type: "file", id: "upload", accept: ".json,.sgf,.txt" });
  file.addEventListener("change", async () => {
    if (!file.files.length) return;
    try {
      const text = await file.files[0].text();
      const r = await api("/api/games/upload", { method: "POST", body: text });
      location.hash = "review=" + r.id;
      if (r.notes && r.notes.length) showMessage(r.notes.join("; "), true);
    } catch (e) { showMessage(e.message, true); }
  });
  main.replaceChildren(h("fieldset", {}, h("legend", { text: "Upload a game for review (JSON record or ISS record)" }), file),
                       h("h3", { text: "Finished games" }), list);
  try {
    const games = (await api("/api/games/finished")).games;
    if (!games.length) list.append(h("p", { text: "none yet" }));
    const t = h("table", { class: "list", id: "games" });
    t.append(h("tr", {}, h("th", { text: "#" }), h("th", { text: "finished" }), h("th", { text: "game" }),
      h("th", { text: "opponents" }), h("th", { text: "result" }), h("th", { text: "" })));
    for (const g of games) {
      const opp = (g.players || []).filter((p, s) => s !== g.seat || g.source !== "played").join(", ");
      t.append(h("tr", {}, h("td", {}, h("a", { href: "#review=" + g.id, text: "#" + g.id })),
        h("td", { text: new Date(g.finished * 1000).toLocaleString() }), h("td", { text: g.spec }),
        h("td", { text: g.source === "played" ? opp : "uploaded" }), h("td", { text: g.summary, style: "text-align:left" }),
        h("td", {}, h("a", { href: "/api/games/" + g.id + "/record.json", text: "JSON" }))));
    }
    if (games.length) list.append(t);
  } catch (e) { showMessage(e.message, true); }
}

async function openReview(id, autoAnalyse) {
  main.replaceChildren(h("p", { text: "Loading…" }));
  let data;
  try { data = await api("/api/games/" + id + "/review"); } catch (e) { showMessage(e.message, true); return; }
  let i = data.steps.length - 1, notes = {};
  const pane = h("div", {});
  const status = h("span", { id: "step" });
  const analyse = h("button", { id: "analyse", text: data.spec.startsWith("skat") ? "double-dummy analysis" :
    data.spec.startsWith("kalah") ? "move values" : "exact endgame values" });
  const out = h("div", { id: "analysis" });
  analyse.addEventListener("click", async () => {
    analyse.disabled = true; out.textContent = "analysing… (engines work in the background)";
    try {
      const r = await api("/api/games/" + id + "/analysis", { method: "POST" });
      notes = {};
      for (const it of r.items) notes[it.ply] = it;
      for (const it of r.pimc || []) notes[it.ply] = Object.assign({}, notes[it.ply] || {}, { pimc: it });
      out.replaceChildren(analysisSummary(r));
      draw();
    } catch (e) { showMessage(e.message, true); out.textContent = ""; }
    analyse.disabled = false;
  });
  const go = (d) => { i = Math.max(0, Math.min(data.steps.length - 1, i + d)); draw(); };
  const nav = h("div", { class: "steps" },
    h("button", { id: "first", text: "start", onclick: () => { i = 0; draw(); } }), h("button", { id: "prev", text: "◀ back", onclick: () => go(-1) }),
    status, h("button", { id: "nextstep", text: "next ▶", onclick: () => go(1) }),
    h("button", { id: "last", text: "end", onclick: () => { i = data.steps.length - 1; draw(); } }), analyse,
    h("a", { href: "/api/games/" + id + "/record.json", text: "JSON record" }));
  function draw() {
    const st = data.steps[i];
    status.textContent = "step " + i + " / " + (data.steps.length - 1) + (st.label ? " — seat " + st.actor + ": " + st.label : "");
    const felt = h("div", { class: "felt" });
    const v = Object.assign({}, st.view, { legal: [] });
    const fake = { table: { agents: data.players, names: data.players, seat: data.seat, series: [] }, view: v, last: null };
    choices = [];
    if (v.game === "kalah") renderKalah(felt, v);
    else if (v.game === "skat") renderSkat(felt, v, fake);
    else renderDurak(felt, v, fake);
    const extra = h("div", {});
    if (st.hands) {
      st.hands.forEach((hand, s) => {
        const row = h("div", { class: "row" }, h("span", { class: "label", text: "seat " + s + ": " }));
        for (const c of hand) row.append(cardEl(c, { small: true }));
        extra.append(row);
      });
    }
    const note = notes[st.ply - 1] || null;
    const noteEl = h("div", { id: "note" });
    if (note) noteEl.append(describeNote(note));
    pane.replaceChildren(noteEl, felt, extra);
  }
  main.replaceChildren(h("h3", { text: "Review #" + id + ": " + data.spec + " — " + data.summary }), nav, out, pane);
  draw();
  if (autoAnalyse) analyse.click();
  document.onkeydown = (ev) => {
    if (!location.hash.startsWith("#review")) return;
    if (ev.key === "ArrowLeft") go(-1); if (ev.key === "ArrowRight") go(1);
  };
}
function pimcNote(p) {
  const vals = Object.entries(p.values).sort((a, b) => p.null ? 0 : b[1] - a[1])
    .map(([c, x]) => c + " " + x + " (" + pct(p.win[c]) + ")").join(", ");
  const unit = p.null ? "defenders' tricks" : "card points of your side";
  const verdict = p.cost > 0 ? "this card cost " + p.cost + (p.null ? " tricks" : " points") + " on average over the " + p.worlds +
    " worlds you could not rule out (best: " + p.best + ")" : "the best card over the " + p.worlds + " worlds you could not rule out";
  return h("div", { class: p.cost > 0 ? "mistake" : "ok", id: "pimcnote",
    text: "PIMC from what you knew: " + p.card + " — " + verdict + ". Per card: " + unit + " (win share): " + vals });
}
function describeNote(n) {
  if (n.pimc && !("win_before" in n)) return pimcNote(n.pimc);
  if ("win_before" in n && n.pimc) {
    const box = h("div", {}, describeNote(Object.assign({}, n, { pimc: null })), pimcNote(n.pimc));
    return box;
  }
  if ("win_before" in n) {
    const txt = "card " + n.card + " (" + (n.declarer_side ? "declarer" : "defender") + "): declarer could win before: " +
      (n.win_before ? "yes" : "no") + ", after: " + (n.win_after ? "yes" : "no") +
      (n.value_before != null ? " — double-dummy points " + n.value_before + " → " + n.value_after : "") +
      (n.decisive ? " — DECISIVE MISTAKE (keeps it: " + n.better.join(" ") + ")" : n.mistake ? " — mistake" : "");
    return h("div", { class: n.mistake ? "mistake" : "ok", text: txt });
  }
  if ("values" in n) {
    const vals = Object.entries(n.values).map(([p, x]) => "pit " + p + ": " + (x > 0 ? "+" : "") + x).join(", ");
    return h("div", { class: n.mistake ? "mistake" : "ok", text: "move " + n.move + " by seat " + n.mover + ": " + (n.exact === false ? (n.depth > 0 ? "estimated final margins (search depth " + n.depth + ", not exact) " : "immediate store gains (no search finished, not exact) ") : "exact final margins ") + vals + (n.mistake ? " — not the best" : " — best") });
  }
  return h("div", { class: n.mistake ? "mistake" : "ok", text: "seat " + n.mover + " played " + n.move + ": exact endgame value before " +
    n.value + " (best " + n.best + "), after the move " + n.played + (n.mistake ? " — a mistake" : "") });
}
function analysisSummary(r) {
  const mistakes = r.items.filter((x) => x.mistake).length;
  if (!r.items.length) return h("div", { text: r.game === "kalah" ? "no position to analyse (this end rule has no solver)" : r.game === "durak" ? "the stock never ran out in a 2-player game: no exact endgame" : "no card was played" });
  let text = r.items.length + " positions analysed, " + mistakes + " mistake(s)";
  if (r.game === "skat") {
    text = "at the first card the declarer " + (r.items[0].win_before ? "could win" : "could not win") +
      " under perfect play; " + r.items.filter((x) => x.decisive).length + " decisive mistake(s), " + mistakes + " card(s) lost value";
    if (r.pimc && r.pimc.length) {
      const costly = r.pimc.filter((x) => x.cost > 0);
      const total = costly.reduce((a, x) => a + x.cost, 0);
      text += ". From what you knew (PIMC): " + r.pimc.length + " card choice(s), " + costly.length + " below the best" +
        (costly.length ? ", together " + Math.round(total * 10) / 10 + (r.pimc[0].null ? " tricks" : " points") + " on average" : "");
    }
  }
  return h("div", { text });
}

route();
