// spielwerk web table: lobby, table, finished games and review.
// The browser only renders what the server sends for its seat and sends the action it chose.
// Each game's own drawing code lives with the game (games/<game>/web/, declared by its
// table face) and registers itself here with Spielwerk.registerGame(name, face):
//   renderTable(felt, view, message)   draw the table (required)
//   animate(oldView, seat, action, newView)   a promise, played before the next view
//   resultText(view, message)   the line at the end of a game
//   renderReveal(view, message)   elements shown at the end (every hand, ...)
//   renderSeries(message)   the list of a series of games at one table
//   nextLabel, offersAnalysis(view)   the "next" button's text; a link to analyse the game
//   analysisLabel, nothingToAnalyse, analysisText(result, mistakes), describeNote(note)
//                                     the review: button, empty analysis, summary, notes
//   applyLimits(limits)   keep the lobby's fields within the chosen opponent's limits
//   renderPublic(felt, view, message)   a spectator's table from the public view (optional)
//   ownHints   true where renderTable draws the hint itself (else: movesHint below it)
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
  if (params.get("table")) return openTable(params.get("table"), params);
  closeSocket();
  if (params.get("review")) return openReview(params.get("review"), params.get("analyse") === "1");
  if (hash === "games") return openGames();
  if (hash === "people") return openPeople();
  if (params.get("record") !== null) return openRecord(params.get("record"));
  return openLobby();
}
window.addEventListener("hashchange", route);

function closeSocket() {
  if (ws) { ws.onclose = null; ws.close(); }
  ws = null; wsTable = null; current = null; prevView = null; hint = null; hintWaiting = false; moveSent = false;
  connEl.textContent = "";
}

// ----- seats: each person's seat has a private link with its key (in the fragment, never
// sent to the server in a request); this browser keeps the seats it holds and the links it
// was given to pass on, per table, in localStorage.
function stored(name) {
  try { return JSON.parse(localStorage.getItem("spielwerk." + name) || "{}"); } catch (e) { return {}; }
}
function store(name, value) {
  try { localStorage.setItem("spielwerk." + name, JSON.stringify(value)); } catch (e) { /* private mode */ }
}
function rememberSeat(id, seat, key) { const s = stored("seats"); s[id] = { seat, key }; store("seats", s); }
function rememberInvites(id, links, mine) {
  const s = stored("invites"); s[id] = {};
  for (const [seat, link] of Object.entries(links)) if (Number(seat) !== mine) s[id][seat] = link;
  store("invites", s);
}
// A lobby entry's link: the seat this browser holds, else (a table of several people) to
// watch it, else by its id alone (a one-person table on this machine).
function tableLink(id, row) {
  const mine = stored("seats")[id];
  if (mine) return "#table=" + id + "&seat=" + mine.seat + "&key=" + encodeURIComponent(mine.key);
  return "#table=" + id + (row && row.persons && row.persons.length > 1 ? "&spectate=1" : "");
}

// ----- lobby -------------------------------------------------------------------------
let gamesInfo = null;
async function openLobby() {
  main.replaceChildren(h("p", { text: "Loading…" }));
  try { gamesInfo = gamesInfo || (await api("/api/games")).games; }
  catch (e) { showMessage(e.message, true); return; }
  const form = h("form", { id: "newtable" });
  const gameSel = h("select", { id: "game" });
  for (const g of Object.keys(gamesInfo)) gameSel.append(h("option", { value: g, text: g }));
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
      rememberInvites(r.id, r.links || {}, r.seat);
      location.hash = (r.url || "/#table=" + r.id).replace(/^\/#/, "");
    } catch (e) { showMessage(e.message, true); }
  });
  const list = h("div", {});
  main.replaceChildren(form, h("h3", { text: "Your tables" }), list);
  showWarming(form);
  try {
    const ids = Object.keys(stored("seats")).slice(-200).join(",");
    const t = (await api("/api/tables?ids=" + encodeURIComponent(ids))).tables;
    if (!t.length) list.append(h("p", { text: "none yet" }));
    for (const row of t) list.append(h("div", { class: "mytable" }, h("a", { href: tableLink(row.id, row),
      text: tableEntryText(row) })));
  } catch (e) { showMessage(e.message, true); }
}

// While the server warms its engines up (the first start on a machine compiles them), the
// lobby says so above the form, until /api/engines says they are ready.
async function showWarming(form) {
  let note = null;
  for (;;) {
    let warming = false;
    try { warming = (await api("/api/engines")).warming; } catch (e) { warming = false; }
    if (!warming || !form.isConnected) { if (note) note.remove(); return; }
    if (!note) {
      note = h("p", { id: "warming", class: "note", text: "Engines warming up: the first start " +
        "on this machine compiles them (about half a minute). A table opened now waits for " +
        "its first engine move." });
      form.before(note);
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
}

// One of "your tables": the game, who plays (you marked), when created, games finished, now.
function tableEntryText(row) {
  const who = row.names ? row.names.map((n, s) => s === row.seat && n !== "you" ? n + " (you)" : n).join(", ")
    : "vs " + (row.opponents || []).filter(Boolean).join(", ");
  const created = row.created ? "created " + new Date(row.created * 1000).toLocaleString() : null;
  const finished = row.finished != null ? row.finished + " finished" : null;
  const joined = row.persons && row.persons.length > 1 && row.names ?
    "joined: " + (row.joined.length ? row.joined.map((s) => row.names[s]).join(", ") : "nobody") : null;
  return [row.heading || row.spec, who, created, finished, row.status, joined].filter(Boolean).join(" — ");
}

function numInput(id, value, min, max) {
  return h("input", { id, type: "number", value, min, max, step: "any", style: "width:4.5em" });
}
// One field of the form per parameter the game's table face offers (/api/games "lobby").
function lobbyField(f) {
  const id = "opt-" + f.param;
  if (f.kind === "check") {
    const box = h("input", { id, type: "checkbox" });
    box.checked = Boolean(f.default);
    return h("label", {}, box, " " + f.label);
  }
  if (f.kind === "choice") {
    const sel = h("select", { id });
    for (const [value, text] of f.choices) sel.append(h("option", { value, text }));
    if (f.default != null) sel.value = String(f.default);
    return h("label", {}, f.label + " ", sel);
  }
  return h("label", {}, f.label + " ", numInput(id, f.default, f.low, f.high));
}
function fieldValue(f) {
  const el = document.getElementById("opt-" + f.param);
  if (f.kind === "check") return el.checked;
  if (f.kind === "choice") {
    const c = f.choices.find(([value]) => String(value) === el.value);
    return c ? c[0] : el.value;
  }
  return Number(el.value);
}
function renderGameOptions(box, game) {
  const info = gamesInfo[game];
  const parts = info.lobby.map(lobbyField);
  // the person's seat by name (forehand, South, ...); numbered where the seat count is a field
  const seatSel = h("select", { id: "opt-seat" });
  const drawSeats = (n) => {
    const keep = Number(seatSel.value) || 0;
    const label = (s) => n === info.players && info.seat_labels[s] ? info.seat_labels[s] : "seat " + s;
    seatSel.replaceChildren(...Array.from({ length: n }, (_, s) => h("option", { value: String(s), text: label(s) })));
    seatSel.value = String(Math.min(keep, n - 1));
  };
  parts.push(h("label", {}, "your name ", h("input", { id: "opt-name", maxlength: 24, placeholder: "you", style: "width:8em" })),
             h("label", {}, "your seat ", seatSel),
             h("label", {}, "seconds per engine move ", numInput("opt-time", 2, 0.05, 60)));
  const opp = h("div", { id: "opponents" });
  const seats = () => info.seats_param ? document.getElementById("opt-" + info.seats_param) : null;
  const drawOpp = () => {
    const n = seats() ? Number(seats().value) || info.players : info.players;
    drawSeats(n);
    opp.replaceChildren(h("span", { text: "opponents: " }));
    for (let i = 0; i < n - 1; i++) {
      const s = h("select", { class: "opp", id: "opp-" + i });
      for (const a of info.agents) s.append(h("option", { value: a.name, text: a.name + " — " + a.description }));
      s.append(h("option", { value: "person", text: "a person — gets a private link to this seat" }));
      s.value = info.default_opponent;
      const spec = h("input", { class: "oppspec", id: "oppspec-" + i, placeholder: "or a spec, e.g. " + info.spec_example,
        style: "width:14em" });
      opp.append(s, spec);
    }
  };
  box.replaceChildren(...parts, opp);
  drawOpp();
  if (seats()) seats().addEventListener("change", drawOpp);
  if (info.limits) {
    const apply = () => applyLimits(game, info);
    box.addEventListener("change", apply);
    box.addEventListener("input", apply);
    apply();
  }
}
// Keep the fields within what the chosen opponent plays (info.limits, per agent; the game's
// page code knows its fields).
function applyLimits(game, info) {
  const face = games[game];
  const sel = document.getElementById("opp-0"), spec = document.getElementById("oppspec-0");
  const name = ((spec && spec.value.trim()) || (sel && sel.value) || info.default_opponent).split(":")[0];
  const lim = info.limits[name] || info.limits[info.default_opponent];
  if (lim && face && face.applyLimits) face.applyLimits(lim);
}
function collectOptions(game) {
  const val = (id) => document.getElementById(id);
  const params = {};
  for (const f of gamesInfo[game].lobby) params[f.param] = fieldValue(f);
  const opponents = [...document.querySelectorAll("select.opp")].map((s, i) => {
    const spec = document.getElementById("oppspec-" + i).value.trim();
    return spec || s.value;
  });
  const seat = Number(val("opt-seat").value), name = val("opt-name").value.trim();
  const body = { game, params, seat, opponents, time: Number(val("opt-time").value) };
  if (opponents.includes("person")) {  // people at one table: every seat named
    const it = opponents[Symbol.iterator]();
    body.seats = Array.from({ length: opponents.length + 1 }, (_, s) => s === seat ? "person" : it.next().value);
    delete body.opponents;
  }
  if (name) { body.names = new Array(opponents.length + 1).fill(null); body.names[seat] = name; }
  return body;
}

// ----- the table ---------------------------------------------------------------------
let wsQuery = "";
function openTable(id, params) {
  if (params && params.get("key")) rememberSeat(id, Number(params.get("seat")), params.get("key"));
  const mine = stored("seats")[id];
  const query = params && params.get("spectate") === "1" ? "?spectate=1" :
    mine ? "?seat=" + mine.seat + "&key=" + encodeURIComponent(mine.key) : "";
  if (wsTable === id && ws && wsQuery === query) return;
  closeSocket();
  wsTable = id; wsQuery = query;
  main.replaceChildren(h("p", { text: "Connecting…" }));
  connect(id);
}

function connect(id) {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const sock = new WebSocket(proto + "://" + location.host + "/ws/" + id + wsQuery);
  let opened = false;
  ws = sock;
  connEl.textContent = "connecting…";
  sock.onopen = () => { opened = true; connEl.textContent = "connected"; };
  sock.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "view") { animating = animating.then(() => { moveSent = false; return showView(m); }); }
    else if (m.type === "thinking") { animating = animating.then(() => setThinking(m.seat)); }
    else if (m.type === "hint") { animating = animating.then(() => { hint = m; hintWaiting = false; if (current) render(); }); }
    else if (m.type === "error") {
      hintWaiting = false; showMessage(m.message, true);
      if (moveSent) { moveSent = false; if (current) render(); }  // refused: the controls again
    }
    else if (m.type === "notice") showMessage(m.message, false);
  };
  sock.onclose = (ev) => {
    if (ws !== sock) return;
    if (ev.code === 4403 || !opened) {  // not opened: refused (a wrong link) or the server is away
      fetch("/api/stats").then((r) => {
        if (ws !== sock) return;
        if (!r.ok) throw new Error("down");
        connEl.textContent = ""; ws = null;
        main.replaceChildren(h("p", { id: "refused", class: "error", text: "refused: this link does not open a seat here" }));
      }).catch(() => {
        if (ws !== sock) return;
        connEl.textContent = "reconnecting…";
        setTimeout(() => { if (ws === sock && wsTable === id) connect(id); }, 1000);
      });
      return;
    }
    if (ev.code === 4404 || ev.code === 4409 || ev.code === 4500) {
      connEl.textContent = ev.code === 4409 ? "table damaged" : "no such table"; ws = null; return;
    }
    connEl.textContent = "reconnecting…";
    setTimeout(() => { if (ws === sock && wsTable === id) connect(id); }, 1000);
  };
}

function send(obj) {
  if (!ws || ws.readyState !== WebSocket.OPEN) { showMessage("not connected — reconnecting", true); return false; }
  ws.send(JSON.stringify(obj));
  return true;
}
// A move (or next, undo) is sent once: its buttons are disabled until the next view arrives
// (or the server refuses it), so a double click cannot send it twice (a stale move).
let moveSent = false;
function sendMove(obj) {
  if (moveSent || !send(obj)) return;
  moveSent = true;
  document.querySelectorAll("#felt button, #over button, #felt select, #felt input").forEach((el) => { el.disabled = true; });
}
function act(id) { sendMove({ type: "act", action: id, ply: current.view.ply }); }

function setThinking(seat) {
  const el = document.getElementById("thinking");
  if (el) { el.textContent = (current ? playerName(current, seat) : "seat " + seat) + " is thinking…"; el.className = "thinking"; }
  if (current) current.thinking = seat;
  const felt = document.getElementById("felt");
  if (felt && felt.dataset.turn !== "over") felt.dataset.turn = "other";
  document.querySelectorAll(".seatbox").forEach((b) => b.classList.toggle("tomove", Number(b.dataset.seat) === seat));
}

async function showView(m) {
  const old = current;
  current = m;
  const v = m.view;
  const face = games[v.game];
  if (face && face.animate && old && old.view.game === v.game && m.last && m.last.action != null &&
      old.view.ply + 1 === v.ply && !old.view.over) {
    await face.animate(old.view, m.last.seat, m.last.action, v);
  }
  render();
}

function render() {
  const m = current, v = m.view;
  choices = []; selected = -1;
  if (m.table.spectator) return renderPublic(m);
  const head = h("div", { class: "info" },
    h("strong", { text: v.heading || v.game, title: v.spec }),
    myName(m) ? h("span", { id: "me", text: "you are " + myName(m) }) : null,
    h("span", { id: "thinking", class: m.thinking != null ? "thinking" : "",
                text: m.thinking != null ? playerName(m, m.thinking) + " is thinking…" :
                  (v.over ? "game over" : (v.to_move === v.seat ? "your turn" : "")) }));
  const felt = h("div", { class: "felt", id: "felt" });
  felt.dataset.ply = v.ply;
  felt.dataset.turn = v.over ? "over" : (v.to_move === v.seat && m.thinking == null ? "me" : "other");
  drawTable(felt, v, m);
  const face = games[v.game];
  const hintRow = face && !face.ownHints ? movesHint(v, m) : null;
  const last = m.last ? h("div", { class: "label", id: "last", text: "last: " + (m.last.seat === v.seat ? "you" : playerName(m, m.last.seat)) + " — " + m.last.label }) : null;
  main.replaceChildren(head, renderSeats(m), felt, hintRow || "", last || "", renderOver(m));
}

// The hint of a game whose page code does not draw its own (face.ownHints): a button on the
// person's turn; the answer's text and its table of moves ({text, columns, rows, best}),
// the best moves marked on the table.
// The hint button (every game's): asks once a position, says so while the hint is worked out.
function hintButton(v) {
  const hb = h("button", { id: "hintbtn", text: hintWaiting ? "working out a hint…" : "hint" });
  hb.disabled = hintWaiting || (hint != null && hint.ply === v.ply);
  hb.addEventListener("click", () => { hb.disabled = true; hb.textContent = "working out a hint…"; Spielwerk.askHint(); });
  return hb;
}
function movesHint(v, m) {
  const myTurn = !v.over && v.to_move === v.seat && m.thinking == null && v.legal && v.legal.length;
  if (!myTurn || !m.table.hints) return null;
  const row = h("div", { id: "hintrow" });
  row.append(h("div", { class: "row center" }, hintButton(v)));
  if (hint == null || hint.ply !== v.ply) return row;
  const x = hint.hint, box = h("div", { class: "hint", id: "hint" }, h("div", { id: "hinttext", text: x.text }));
  if (x.rows && x.rows.length) {
    const t = h("table", { class: "list", id: "hinttable" }, h("tr", {}, ...x.columns.map((c) => h("th", { text: c }))));
    for (const r of x.rows) t.append(h("tr", {}, ...r.map((c, j) => h("td", { text: c, style: j ? "" : "text-align:left" }))));
    box.append(t);
  }
  for (const c of choices) if ((x.best || []).includes(c.id)) c.el.classList.add("hintbest");
  row.append(box);
  return row;
}

// Where a person of the table is: joined, away (an engine may play for them), not joined yet.
function presence(t, s) {
  if (t.joined.includes(s)) return "joined";
  const standIn = (t.stand_ins || {})[s];
  if (standIn) return "away, " + standIn.split(":")[0] + " plays for them";
  return (t.away || []).includes(s) ? "away" : "not joined yet";
}

// People at the table: who has joined, who is awaited, and (for the creator) the links to
// pass on to the others.
function renderSeats(m) {
  const t = m.table, box = h("div", { id: "seats", class: "label" });
  if (!t.persons || t.persons.length < 2) return box;
  const who = t.persons.map((s) => playerName(m, s) + (s === t.seat ? " (you)" : "") + ": " + presence(t, s));
  box.append(h("div", { text: "people at this table — " + who.join(", ") }));
  const v = m.view;
  const standIns = t.stand_ins || {};
  if (!v.over && t.persons.includes(v.to_move) && !t.joined.includes(v.to_move) && !standIns[v.to_move]) {
    const away = (t.away || []).includes(v.to_move);
    box.append(h("div", { id: "waiting", text: "waiting for " + playerName(m, v.to_move) + (away ? " (away) to come back" : " to take the seat") }));
  }
  box.append(h("div", {}, "link to watch (the public view, no hand): ",
    h("input", { id: "watchlink", readonly: "readonly", value: location.origin + "/#table=" + t.id + "&spectate=1", style: "width:28em" })));
  const invites = stored("invites")[t.id] || {};
  for (const [seat, link] of Object.entries(invites)) {
    if (t.joined.includes(Number(seat))) continue;
    const url = location.origin + link;
    const field = h("input", { class: "invite", id: "invite-" + seat, readonly: "readonly", value: url, style: "width:32em" });
    box.append(h("div", {}, "link for " + playerName(m, Number(seat)) + " (seat " + seat + "), to copy: ", field,
      h("button", { type: "button", text: "copy", onclick: () => { field.select(); navigator.clipboard && navigator.clipboard.writeText(url); } })));
  }
  return box;
}

// A spectator's table: the public view only (whose turn, what was played, the result).
function renderPublic(m) {
  const v = m.view, t = m.table;
  const names = t.names.map((n, s) => n + (t.agents[s] ? "" : " (" + presence(t, s) + ")"));
  const state = v.over ? "game over" : m.thinking != null ? playerName(m, m.thinking) + " is thinking…" :
    v.to_move != null ? playerName(m, v.to_move) + " to move" : "";
  const face = games[v.game] || {};
  let result = null;
  if (v.over) {
    try { result = h("h3", { id: "result", text: face.resultText ? face.resultText(v, m) : "game over" }); }
    catch (e) { result = h("h3", { id: "result", text: "game over" }); }
  }
  let felt = "";
  if (face.renderPublic) {
    felt = h("div", { class: "felt", id: "felt" });
    felt.dataset.ply = v.ply; felt.dataset.turn = v.over ? "over" : "watch";
    try { face.renderPublic(felt, v, m); } catch (e) { felt = ""; }
  }
  main.replaceChildren(h("div", { class: "info" }, h("strong", { text: v.heading || v.game, title: v.spec }),
    h("span", { text: "watching" }), h("span", { id: "thinking", text: state })),
    h("div", { class: "label", id: "players", text: "players: " + names.join(", ") }), felt,
    m.last ? h("div", { class: "label", id: "last", text: "last: " + playerName(m, m.last.seat) + " — " + m.last.label }) : "",
    result || "");
}

// The game's own drawing of its table (its page code, registered with registerGame).
function drawTable(felt, v, m) {
  const face = games[v.game];
  if (face) face.renderTable(felt, v, m);
  else felt.replaceChildren(h("p", { text: "this page cannot draw " + v.game + ": its page code did not load" }));
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

let hint = null, hintWaiting = false;
function pct(x) { return Math.round(100 * x) + "%"; }
function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
function seatShort(v, s, m) {
  return s === v.seat ? "you" : playerName(m, s);
}
// The name of this page's person (null: the one person of a table, "you" already).
function myName(m) {
  const name = ((m.table.names || [])[m.view.seat] || "").replace(/ \(.* playing\)$/, "");
  return name && name !== "you" ? name : null;
}

function playerName(m, s) {
  const names = m.table.names;
  if (names && names[s]) return names[s];
  return s === m.table.seat ? "you" : (m.table.agents[s] || "seat " + s) + " (seat " + s + ")";
}
// ----- end of a game
function renderOver(m) {
  const v = m.view;
  const box = h("div", { id: "over" });
  const face = games[v.game] || {};
  if (m.table.series && m.table.series.length && face.renderSeries) box.append(face.renderSeries(m));
  if (!v.over) return box;
  const res = h("div", { class: "result", id: "result" });
  res.append(h("h3", { text: face.resultText ? face.resultText(v, m) : "game over" }));
  if (face.renderReveal) res.append(...face.renderReveal(v, m));
  const gid = m.table.game_id;
  const links = h("div", { class: "controls" });
  const next = h("button", { class: "primary", id: "next", text: face.nextLabel || "new game",
                             onclick: () => sendMove({ type: "next" }) });
  addChoice(next, null);
  links.append(next);
  if (gid != null) {
    if (face.offersAnalysis && face.offersAnalysis(v)) links.append(h("a", { href: "#review=" + gid + "&analyse=1", id: "analyselink", text: "analyse this deal" }), " · ");
    links.append(h("a", { href: "#review=" + gid, text: "review this game" }), " · ",
      h("a", { href: "/api/games/" + gid + "/record.json", text: "download JSON record" }));
    if (m.table.iss) links.append(" · ", h("a", { href: "/api/games/" + gid + "/record.sgf", text: "download ISS record" }));
  }
  res.append(links);
  box.prepend(res);
  return box;
}

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
  const face = games[data.steps[0].view.game] || {};
  const analyse = h("button", { id: "analyse", text: face.analysisLabel || "analysis" });
  const out = h("div", { id: "analysis" });
  analyse.addEventListener("click", async () => {
    analyse.disabled = true; out.textContent = "analysing… (engines work in the background)";
    try {
      const r = await api("/api/games/" + id + "/analysis", { method: "POST" });
      notes = {};
      for (const it of r.items) notes[it.ply] = it;
      for (const it of r.pimc || []) notes[it.ply] = Object.assign({}, notes[it.ply] || {}, { pimc: it });
      out.replaceChildren(analysisSummary(r, face));
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
    const who = (s) => data.players[s] || "seat " + s;
    status.textContent = "step " + i + " / " + (data.steps.length - 1) + (st.label ? " — " + who(st.actor) + ": " + st.label : "");
    const felt = h("div", { class: "felt" });
    const v = Object.assign({}, st.view, { legal: [] });
    const fake = { table: { agents: data.players, names: data.players, seat: data.seat, series: [], review: id }, view: v, last: null };
    choices = [];
    drawTable(felt, v, fake);
    const extra = h("div", {});
    if (st.hands) {
      st.hands.forEach((hand, s) => {
        const row = h("div", { class: "row reviewhand" }, h("span", { class: "label", text: who(s) + ": " }));
        for (const c of hand) row.append(cardEl(c, { small: true }));
        extra.append(row);
      });
    }
    const note = notes[st.ply - 1] || null;
    const noteEl = h("div", { id: "note" });
    if (note) noteEl.append(face.describeNote ? face.describeNote(note) : h("div", { text: JSON.stringify(note) }));
    pane.replaceChildren(noteEl, felt, extra);
  }
  main.replaceChildren(h("h3", { text: "Review #" + id + ": " + (data.heading || data.spec) + " — " + data.summary, title: data.spec }), nav, out, pane);
  draw();
  if (autoAnalyse) analyse.click();
  document.onkeydown = (ev) => {
    if (!location.hash.startsWith("#review")) return;
    if (ev.key === "ArrowLeft") go(-1); if (ev.key === "ArrowRight") go(1);
  };
}
function analysisSummary(r, face) {
  const mistakes = r.items.filter((x) => x.mistake).length;
  if (!r.items.length) return h("div", { text: face.nothingToAnalyse || "nothing to analyse" });
  const text = face.analysisText ? face.analysisText(r, mistakes) : r.items.length + " positions analysed, " + mistakes + " mistake(s)";
  return h("div", { text });
}

// ----- the games' page code ------------------------------------------------------------
const games = {};  // game name -> its face: { renderTable, resultText, ... } (see the top)
// What the games' scripts use of the page (they load after this file, see index.html).
const Spielwerk = {
  registerGame(name, face) { games[name] = face; },
  h, act, send, sendMove, addChoice, render, seatName, seatShort, playerName, pct, sleep, cardEl, cardBack,
  SUIT_SYMBOL,
  hintState: () => ({ hint, waiting: hintWaiting }), hintButton,
  askHint() { hintWaiting = true; send({ type: "hint" }); },
};
window.Spielwerk = Spielwerk;

// the games' scripts come after this one: route once they have registered
document.addEventListener("DOMContentLoaded", route);
