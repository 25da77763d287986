// Skat at the web table: bidding, the skat and putting, the game selector, tricks, hints,
// the list of a series, the reveal at the end and the double-dummy / PIMC review notes.
// Registered with the page (Spielwerk.registerGame); declared by the game's table face.
"use strict";
(() => {
const { h, act, sendMove, addChoice, seatName, seatShort, playerName, pct, cardEl } = Spielwerk;

function renderSkat(felt, v, m) {
  const others = [];
  for (let s = 0; s < v.players; s++) {
    if (s === v.seat) continue;
    const box = h("div", { class: "seatbox" + (v.to_move === s ? " tomove" : ""), "data-seat": s },
      h("div", { text: seatName(v, s, m) + " — " + v.positions[s] + (v.declarer === s ? " — declarer" : "") }),
      h("div", { class: "label", text: v.hand_sizes[s] + (v.hand_sizes[s] === 1 ? " card, " : " cards, ") + v.tricks[s] + (v.tricks[s] === 1 ? " trick" : " tricks") }));
    if (v.declarer === s && v.declarer_cards) {
      const row = h("div", { class: "row" });
      for (const c of v.declarer_cards) row.append(cardEl(c, { small: true }));
      box.append(h("div", { class: "label", text: "open cards:" }), row);
    }
    others.push(box);
  }
  const trick = h("div", { class: "row center trick", id: "trick" });
  v.trick.forEach((c, i) => trick.append(h("div", {}, cardEl(c), h("div", { class: "label", text: seatShort(v, v.trick_seats[i], m) }))));
  const info = h("div", { class: "info" },
    h("span", { id: "phase", text: "phase: " + v.phase }),
    h("span", { text: "bid: " + (v.bid || "—") }),
    v.declarer >= 0 ? h("span", { text: "declarer: " + seatShort(v, v.declarer, m) }) : null,
    v.contract ? h("span", { id: "contract", text: "game: " + v.contract }) : null,
    h("span", { id: "points", text: skatPointsText(v, m) }),
    v.seat != null ? h("span", { text: "you: " + v.positions[v.seat] }) : null);
  let lastTrick = null, tricks = null;
  if (v.last_trick) {
    const row = h("div", { class: "row", id: "lasttrick" }, h("span", { class: "label", text: "last trick (" + seatShort(v, v.last_trick.winner, m) + " won): " }));
    v.last_trick.cards.forEach((c, i) => row.append(h("div", { class: "played" }, cardEl(c, { small: true }),
      h("div", { class: "label", text: seatShort(v, v.last_trick.seats[i], m) }))));
    if (v.tricks_played && v.tricks_played.length > 1) {
      // open for this deal only: a new deal or the review starts with it closed
      const key = dealKey(m);
      tricks = tricksTable(v, m);
      tricks.hidden = tricksOpen !== key;
      const btn = h("button", { id: "showtricks", text: "all tricks (" + v.tricks_played.length + ")" });
      btn.addEventListener("click", () => { tricksOpen = tricksOpen === key ? null : key; tricks.hidden = tricksOpen !== key; });
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
  const { hint } = Spielwerk.hintState();
  if (myTurn && m.table && m.table.id) controls.append(Spielwerk.hintButton(v));
  if (m.table.can_undo) {
    const undo = h("button", { id: "undo", class: "act", text: "take back the last put card", onclick: () => sendMove({ type: "undo" }) });
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
    tricks || "", controls, hintBox || "",
    v.seat != null ? h("div", { class: "label", text: "your hand" + (legalCards.size ? " (legal cards raised)" : "") }) : "", hand);
}
// A spectator's table: the public view (no hand, no skat, no moves), drawn as a seat's.
function renderPublic(felt, v, m) {
  renderSkat(felt, Object.assign({ hand: [], hand_ids: [], legal: [], skat: null, put: null, card_points: null }, v), m);
}
let tricksOpen = null;  // the deal whose list of all tricks is open (dealKey)
// A deal at a table (its id and deal number) or a game in the review.
function dealKey(m) { return m.table.review != null ? "review " + m.table.review : m.table.id + " " + m.table.deal_no; }
// A hint from the server (worked out from what this seat knows): engine choice and numbers.
function renderHint(x, hand) {
  const box = h("div", { class: "hint", id: "hint" });
  if (x.kind === "none") { box.textContent = x.text; return box; }
  if (x.kind === "bid") {
    // before picking up: the game it declares after picking up (over skats you cannot rule out)
    const its = x.then ? " — " + x.then : x.game ? " — its game " + x.game + ", bids up to " + x.max_bid : " — it would not declare";
    box.append(h("div", { id: "hintengine", text: "engine: " + x.engine + its }));
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
  // fewer worlds than stated: the hint says why (only so many are possible, or its time ran out)
  const worlds = (n, note) => n + (n === 1 ? " world" : " worlds") + (note ? " (" + note + ")" : "");
  box.append(h("div", { id: "hintworlds", text: "PIMC over " + worlds(x.worlds, x.worlds_note) + " you cannot rule out: share of worlds where " + what +
    " is still reached after the card; " + (x.null ? "expected defenders' tricks" : "expected final card points of your side") + " over " + worlds(x.point_worlds, x.point_worlds_note) }));
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
function skatPointsText(v, m) {
  const p = v.card_points;
  if (!p) return "";
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
  const txt = "card " + n.card + " (" + (n.declarer_side ? "declarer" : "defender") + "): declarer could win before: " +
    (n.win_before ? "yes" : "no") + ", after: " + (n.win_after ? "yes" : "no") +
    (n.value_before != null ? " — double-dummy points " + n.value_before + " → " + n.value_after : "") +
    (n.decisive ? " — DECISIVE MISTAKE (keeps it: " + n.better.join(" ") + ")" : n.mistake ? " — mistake" : "");
  return h("div", { class: n.mistake ? "mistake" : "ok", text: txt });
}
function analysisText(r, mistakes) {
  let text = "at the first card the declarer " + (r.items[0].win_before ? "could win" : "could not win") +
    " under perfect play; " + r.items.filter((x) => x.decisive).length + " decisive mistake(s), " + mistakes + " card(s) lost value";
  if (r.pimc && r.pimc.length) {
    const costly = r.pimc.filter((x) => x.cost > 0);
    const total = costly.reduce((a, x) => a + x.cost, 0);
    text += ". From what you knew (PIMC): " + r.pimc.length + " card choice(s), " + costly.length + " below the best" +
      (costly.length ? ", together " + Math.round(total * 10) / 10 + (r.pimc[0].null ? " tricks" : " points") + " on average" : "");
  }
  return text;
}

function resultText(v, m) {
  let text = v.result ? v.result.text : "game over";  // the deal's value and card points
  if (v.ramsch_result) {
    const r = v.ramsch_result;
    const pts = Object.entries(r.points).map(([s, p]) => seatShort(v, Number(s), m) + " " + p).join(", ");
    text = r.durchmarsch >= 0 ? "Ramsch: " + seatShort(v, r.durchmarsch, m) + " took every trick (Durchmarsch, +120)" :
      r.losers.length ? "Ramsch: " + r.losers.map((s) => seatShort(v, s, m)).join(" and ") + (r.losers.length === 1 && r.losers[0] === v.seat ? " lose " : " lost ") +
        r.loss + (r.jungfrau ? " (Jungfrau: doubled)" : "") + " — card points " + pts : "Ramsch: " + pts;
  }
  return text;
}
// Once the deal is over: every hand as dealt, the skat and what the declarer put away.
function renderReveal(v, m) {
  if (!v.reveal || !v.reveal.dealt) return [];
  const rows = [];
  for (let s = 0; s < v.reveal.dealt.length; s++) {
    const row = h("div", { class: "row" }, h("span", { class: "label dealt", text: seatShort(v, s, m) + " (seat " + s + (s === v.seat ? ") were dealt: " : ") was dealt: ") }));
    for (const c of v.reveal.dealt[s]) row.append(cardEl(c, { small: true }));
    rows.push(row);
  }
  const row = h("div", { class: "row", id: "revealskat" }, h("span", { class: "label dealt", text: "skat: " }));
  for (const c of v.reveal.skat) row.append(cardEl(c, { small: true }));
  if (v.reveal.put) {
    row.append(h("span", { class: "label", text: " put away by the declarer: " }));
    for (const c of v.reveal.put) row.append(cardEl(c, { small: true }));
  }
  rows.push(row);
  return rows;
}

Spielwerk.registerGame("skat", {
  ownHints: true,  // drawn in its table (renderHint)
  renderTable: renderSkat,
  renderPublic,
  resultText,
  renderReveal,
  renderSeries: seriesTable,
  nextLabel: "next deal",
  offersAnalysis: (v) => Boolean(v.result && !v.result.passed),
  analysisLabel: "double-dummy analysis",
  nothingToAnalyse: "no card was played",
  analysisText,
  describeNote,
});
})();
