// Kalah at the web table: the board from the person's side, sowing animated seed by seed.
// Registered with the page (Spielwerk.registerGame); declared by the game's table face.
"use strict";
(() => {
const { h, act, addChoice, sleep } = Spielwerk;

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
  animate: animateSowing,
  resultText,
  analysisLabel: "move values",
  nothingToAnalyse: "no position to analyse (this end rule has no solver)",
  describeNote,
  applyLimits,
});
})();
