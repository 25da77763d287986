// Durak at the web table: the bout (each defending card over the attack card it beats),
// the stock and the trump, the other hands as far as they are known.
// Registered with the page (Spielwerk.registerGame); declared by the game's table face.
"use strict";
(() => {
const { h, act, addChoice, seatName, cardEl, SUIT_SYMBOL } = Spielwerk;

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
    v.seat != null ? h("span", { text: "you: " + role }) : null, h("span", { text: "trump suit " + SUIT_SYMBOL[v.trump_suit] }));
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
    v.seat != null ? h("div", { class: "label", text: "your hand (legal cards raised)" }) : "", hand);
}
// A spectator's table: the public view (no hand, no known cards, no moves), drawn as a seat's.
function renderPublic(felt, v, m) {
  renderDurak(felt, Object.assign({ hand: [], legal: [], known: [] }, v), m);
}
function durakNaturalAction(v, name) {
  // the action a click on this card would mean in this phase (the server refuses it if illegal)
  const card = "23456789TJQKA".indexOf(name[1]) * 4 + "CDHS".indexOf(name[0]);
  if (v.phase === "defend") return 320 + card;
  if (v.phase === "lead") return (card >> 2) * 16 + (1 << (card & 3));
  return 256 + card;
}


function describeNote(n) {
  return h("div", { class: n.mistake ? "mistake" : "ok", text: "seat " + n.mover + " played " + n.move + ": exact endgame value before " +
    n.value + " (best " + n.best + "), after the move " + n.played + (n.mistake ? " — a mistake" : "") });
}

function resultText(v) {
  return v.loser == null || v.loser < 0 ? "draw" : v.loser === v.seat ? "you are the durak" : "seat " + v.loser + " is the durak";
}

Spielwerk.registerGame("durak", {
  renderTable: renderDurak,
  renderPublic,
  resultText,
  analysisLabel: "exact endgame values",
  nothingToAnalyse: "the stock never ran out in a 2-player game: no exact endgame",
  describeNote,
});
})();
