// Nim at the web table: the pile and a button per legal take (Spielwerk.registerGame).
"use strict";
(() => {
const { h, act, addChoice } = Spielwerk;
Spielwerk.registerGame("nim", {
  renderTable(felt, v) {
    const buttons = (v.legal || []).map((a) => {
      const b = h("button", { class: "legal", text: a.label });
      b.addEventListener("click", () => act(a.id));
      addChoice(b, a.id);
      return b;
    });
    felt.replaceChildren(h("div", { class: "label", text: v.stones + " stones" }),
                         h("div", { class: "row center" }, buttons));
  },
});
})();
