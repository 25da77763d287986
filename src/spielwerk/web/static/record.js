// spielwerk web table: people's records (#people: who has played; #record=NAME: one
// person's games over time). Drawn here from /api/people and /api/record, no outside assets.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") el.textContent = v; else el.setAttribute(k, v);
  }
  for (const kid of kids) if (kid != null) el.append(kid);
  return el;
}

function recordLink(name) {
  return "#record=" + encodeURIComponent(name);
}

async function openPeople() {
  main.replaceChildren(h("h3", { text: "Records" }), h("p", { text: "Loading…" }));
  let people;
  try { people = (await api("/api/people")).people; } catch (e) { showMessage(e.message, true); return; }
  const list = h("table", { class: "list", id: "people" },
    h("tr", {}, h("th", { text: "name" }), h("th", { text: "games" }), h("th", { text: "last played" })));
  for (const p of people) {
    list.append(h("tr", {}, h("td", {}, h("a", { href: recordLink(p.name), text: p.name })),
      h("td", { text: String(p.games) }), h("td", { text: new Date(p.last * 1000).toLocaleString() })));
  }
  main.replaceChildren(h("h3", { text: "Records" }),
    people.length ? list : h("p", { text: "No one has finished a game at a person's seat yet." }));
}

function signed(x) {
  const v = Math.round(x * 10) / 10;
  return (v > 0 ? "+" : "") + v;
}

// The running total after each game as a line over the game number, with the zero line,
// the lowest and highest totals and the first and last days.
function runningPlot(running, label) {
  const W = 640, H = 220, L = 48, R = 12, T = 12, B = 28;
  const ys = running.map((p) => p[1]);
  let lo = Math.min(0, ...ys), hi = Math.max(0, ...ys);
  if (hi === lo) { hi += 1; lo -= 1; }
  const n = running.length;
  const x = (i) => L + (n === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  const pts = running.map((p, i) => x(i).toFixed(1) + "," + y(p[1]).toFixed(1)).join(" ");
  const day = (t) => new Date(t * 1000).toLocaleDateString();
  const plot = svg("svg", { class: "running", viewBox: `0 0 ${W} ${H}`, role: "img",
                            "aria-label": label, "data-points": String(n) },
    svg("title", { text: label }),
    svg("line", { class: "axis", x1: L, x2: W - R, y1: y(0), y2: y(0) }),
    svg("line", { class: "axis", x1: L, x2: L, y1: T, y2: H - B }),
    svg("text", { x: L - 4, y: y(hi) + 4, "text-anchor": "end", text: signed(hi) }),
    svg("text", { x: L - 4, y: y(0) + 4, "text-anchor": "end", text: "0" }),
    svg("text", { x: L - 4, y: y(lo) + 4, "text-anchor": "end", text: signed(lo) }),
    svg("text", { x: L, y: H - 8, text: day(running[0][0]) }),
    svg("text", { x: W - R, y: H - 8, "text-anchor": "end",
                  text: day(running[n - 1][0]) + " (game " + n + ")" }),
    svg("polyline", { class: "line", points: pts }));
  if (n <= 60) for (let i = 0; i < n; i++) plot.append(svg("circle", { cx: x(i), cy: y(ys[i]), r: 2.5 }));
  return plot;
}

function gameRecord(g) {
  const sec = h("section", { class: "record-game", "data-game": g.game });
  const share = g.played ? Math.round((100 * g.won) / g.played) : 0;
  const parts = [g.played + " games", g.won + " won (" + share + "%)", g.lost + " lost"];
  if (g.drawn) parts.push(g.drawn + " drawn");
  if (g.stand_in) parts.push(g.stand_in + " finished by the stand-in");
  sec.append(h("h3", { text: g.title }),
    h("p", { class: "record-summary", text: parts.join(", ") + "; " + g.score_name + " total " + signed(g.total) }),
    runningPlot(g.running, g.score_name + " after each game"));
  const days = h("table", { class: "list days" },
    h("tr", {}, h("th", { text: "day" }), h("th", { text: "games" }), h("th", { text: "won" }),
      h("th", { text: "lost" }), h("th", { text: g.score_name })));
  for (const d of g.days.slice().reverse()) {
    days.append(h("tr", {}, h("td", { text: d.day }), h("td", { text: String(d.games) }),
      h("td", { text: String(d.won) }), h("td", { text: String(d.lost) }), h("td", { text: signed(d.score) })));
  }
  sec.append(h("h4", { text: "Per day of play" }), days);
  if (g.declared.length) {
    const dec = h("table", { class: "list declared" },
      h("tr", {}, h("th", { text: "declared" }), h("th", { text: "won" }), h("th", { text: "lost" }),
        h("th", { text: "won %" })));
    for (const t of g.declared) {
      const n = t.won + t.lost;
      dec.append(h("tr", {}, h("td", { text: t.type }), h("td", { text: String(t.won) }),
        h("td", { text: String(t.lost) }), h("td", { text: Math.round((100 * t.won) / n) + "%" })));
    }
    sec.append(h("h4", { text: "As declarer, by game type" }), dec);
  }
  return sec;
}

async function openRecord(name) {
  main.replaceChildren(h("p", { text: "Loading…" }));
  let rec;
  try { rec = await api("/api/record?name=" + encodeURIComponent(name)); } catch (e) { showMessage(e.message, true); return; }
  const box = h("div", { id: "record" }, h("h2", { text: "Record of " + rec.name }),
    h("p", {}, h("a", { href: "#people", text: "everyone's records" })));
  if (!rec.games.length) box.append(h("p", { text: "No finished games at a person's seat under this name." }));
  for (const g of rec.games) box.append(gameRecord(g));
  if (rec.unreadable) box.append(h("p", { class: "note", text: rec.unreadable + " stored games could not be read and are left out." }));
  main.replaceChildren(box);
}
