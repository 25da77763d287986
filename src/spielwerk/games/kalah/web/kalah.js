// Kalah at the web table: the board from the person's side, sowing animated seed by seed.
// Registered with the page (Spielwerk.registerGame); declared by the game's table face.
"use strict";
(() => {
const { h, act, addChoice, sleep } = Spielwerk;

function kalahCells(v) {
  // board as the kernel lays it out: South pits, South store, North pits, North store
  return [...v.south, v.stores[0], ...v.north, v.stores[1]];
}
let watchedNames = null;  // a spectator's players, by seat (the last public message's)
// A person's board from their side (their pits below, clickable on their turn); a
// spectator's (v.seat null: the public view, the whole board) from South's, nothing clickable.
function renderKalah(felt, v, boardOverride, highlight, m) {
  const pits = v.pits;
  const cells = boardOverride || kalahCells(v);
  const watching = v.seat == null;
  const me = watching ? 0 : v.seat, opp = 1 - me;
  const mine = (i) => me * (pits + 1) + i, theirs = (i) => opp * (pits + 1) + i;
  const legal = new Set((v.legal || []).map((a) => a.id));
  const side = (s) => ["South", "North"][s];
  if (watching && m && m.table) watchedNames = m.table.names;  // the animation's too
  const names = watching ? watchedNames : null;
  const who = (s) => side(s) + (names && names[s] ? ", " + names[s] : "");
  const grid = h("div", { class: "kalah", id: "kalah" });
  grid.style.gridTemplateColumns = "auto repeat(" + pits + ", auto) auto";
  const storeOpp = h("div", { class: "store", id: "store-" + opp, text: cells[opp * (pits + 1) + pits] });
  const storeMe = h("div", { class: "store", id: "store-" + me, text: cells[me * (pits + 1) + pits] });
  storeOpp.style.gridColumn = "1"; storeMe.style.gridColumn = String(pits + 2);
  grid.append(storeOpp);
  for (let c = 0; c < pits; c++) {  // the far side's pits, right to left from this side
    const i = pits - 1 - c;
    const el = h("div", { class: "pit", id: "pit-" + opp + "-" + i, text: cells[theirs(i)] });
    el.style.gridRow = "1"; el.style.gridColumn = String(c + 2);
    if (highlight === theirs(i)) el.classList.add("drop");
    grid.append(el);
  }
  grid.append(storeMe);
  for (let i = 0; i < pits; i++) {
    const el = h(watching ? "div" : "button", { class: "pit", id: "pit-" + me + "-" + i, text: cells[mine(i)],
                                                "aria-label": "pit " + (i + 1) });
    el.style.gridRow = "2"; el.style.gridColumn = String(i + 2);
    if (highlight === mine(i)) el.classList.add("drop");
    if (!watching && legal.has(i)) el.classList.add("legal");
    if (!watching && !boardOverride) { el.addEventListener("click", () => act(i)); addChoice(el, i); }
    grid.append(el);
  }
  const lo = h("div", { class: "storelabel", text: watching ? "North's store" : "opponent's store" });
  const lm = h("div", { class: "storelabel", text: watching ? "South's store" : "your store" });
  lo.style.gridColumn = "1"; lo.style.gridRow = "3"; lm.style.gridColumn = String(pits + 2); lm.style.gridRow = "3";
  grid.append(lo, lm);
  const labels = h("div", { class: "row center" });
  const rule = v.empty_capture ? "empty capture" : "standard capture";
  felt.replaceChildren(
    h("div", { class: "label", text: watching ? who(opp) : "opponent (" + side(opp) + ")" }), grid,
    h("div", { class: "label", text: watching ? who(me) + ": pits 1–" + pits + " from the left; " + rule :
      "you (" + side(me) + "): pits 1–" + pits + " from your left; " + rule }), labels);
}
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


function describeNote(n) {
  const vals = Object.entries(n.values).map(([p, x]) => "pit " + p + ": " + (x > 0 ? "+" : "") + x).join(", ");
  return h("div", { class: n.mistake ? "mistake" : "ok", text: "move " + n.move + " by seat " + n.mover + ": " + (n.exact === false ? (n.depth > 0 ? "estimated final margins (search depth " + n.depth + ", not exact) " : "immediate store gains (no search finished, not exact) ") : "exact final margins ") + vals + (n.mistake ? " — not the best" : " — best") });
}

function resultText(v) {
  if (v.seat == null) {  // a spectator: the result by side
    const d = v.returns[0];
    return (d > 0 ? "South wins by " + d : d < 0 ? "North wins by " + (-d) : "draw") +
      " (South's store " + v.stores[0] + " : North's store " + v.stores[1] + ")";
  }
  const d = v.returns[v.seat];
  let text = d > 0 ? "you win by " + d : d < 0 ? "you lose by " + (-d) : "draw";
  text += " (your store " + v.stores[v.seat] + " : opponent's store " + v.stores[1 - v.seat] + ")";
  return text;
}

// Keep the lobby's number fields within what the chosen opponent plays (its limits).
function applyLimits(lim) {
  const pits = document.getElementById("opt-pits"), seeds = document.getElementById("opt-seeds");
  if (!pits || !seeds) return;
  const clamp = (el, lo, hi) => {
    el.min = lo; el.max = hi;
    const v = Number(el.value);
    if (el.value !== "" && (v < lo || v > hi)) el.value = Math.max(lo, Math.min(hi, v));
  };
  clamp(pits, lim.pits.min, lim.pits.max);
  clamp(seeds, lim.seeds.min, lim.seeds.max_by_pits[String(Number(pits.value))] || lim.seeds.min);
}

Spielwerk.registerGame("kalah", {
  renderTable: (felt, v) => renderKalah(felt, v),
  renderPublic: (felt, v, m) => renderKalah(felt, v, null, undefined, m),
  animate: animateSowing,
  resultText,
  analysisLabel: "move values",
  nothingToAnalyse: "no position to analyse (this end rule has no solver)",
  describeNote,
  applyLimits,
});
})();
