// Cards drawn by the project: HTML + CSS only, no images, nothing fetched.
"use strict";
const SUIT_SYMBOL = { C: "\u2663", S: "\u2660", H: "\u2665", D: "\u2666" };
const RANK_TEXT = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

function cardEl(name, opts) {
  opts = opts || {};
  const el = document.createElement(opts.button ? "button" : "div");
  const suit = name[0], rank = name.slice(1);
  el.className = "card suit-" + suit + (opts.small ? " small" : "");
  el.dataset.card = name;
  const r = RANK_TEXT[rank] || rank;
  el.innerHTML = '<span class="corner">' + r + "<br>" + SUIT_SYMBOL[suit] + "</span>" +
    '<span class="pip">' + SUIT_SYMBOL[suit] + "</span>";
  el.setAttribute("aria-label", name);
  return el;
}

function cardBack(opts) {
  const el = document.createElement("div");
  el.className = "card back" + (opts && opts.small ? " small" : "");
  return el;
}
