// The jaxpr graph view: Graphviz's SVG, fitted to the cell's width, with zoom buttons, a search box that outlines the
// equations whose label contains the text ("sin", "dot_general", "f32[3"), and a click on a
// node that lights up the edges into and out of it.
import { h, frame } from "./util.js";

function toolbar(box, svgBox) {
  const bar = h("div", "edujax-toolbar");
  // Zooming sets the picture's width: "fit" (the default) shrinks a wide graph to the
  // cell, "1:1" shows Graphviz's own size (the cell scrolls), "+" and "−" step from there.
  const zoom = (factor) => {
    const svg = svgBox.querySelector("svg");
    if (!svg) return;
    const natural = svg.viewBox.baseVal?.width || svg.getBoundingClientRect().width;
    const now = svg.getBoundingClientRect().width;
    svg.style.maxWidth = factor === "fit" ? "100%" : "none";
    svg.style.width = factor === "fit" ? "" : `${factor === 1 ? natural : now * factor}px`;
  };
  for (const [label, factor] of [["−", 1 / 1.25], ["+", 1.25], ["1:1", 1], ["fit", "fit"]]) {
    const b = h("button", "", label);
    b.onclick = () => zoom(factor);
    bar.appendChild(b);
  }
  const search = h("input");
  search.placeholder = "find: sin, f32[3 ...";
  search.oninput = () => highlight(svgBox, search.value.trim().toLowerCase());
  bar.appendChild(search);
  box.appendChild(bar);
}

function highlight(svgBox, query) {
  for (const node of svgBox.querySelectorAll("g.node")) {
    const text = Array.from(node.querySelectorAll("text"), (t) => t.textContent).join(" ");
    node.classList.toggle("edujax-match", query !== "" && text.toLowerCase().includes(query));
  }
}

function lightUp(svgBox, id) {
  for (const el of svgBox.querySelectorAll(".edujax-lit")) el.classList.remove("edujax-lit");
  svgBox.querySelector(`g.node#${id}`)?.classList.add("edujax-lit");
  for (const edge of svgBox.querySelectorAll("g.edge")) {
    const [src, dst] = (edge.querySelector("title")?.textContent ?? "").split("->");
    if (src === id || dst === id) edge.classList.add("edujax-lit");
  }
}

function render({ model, el }) {
  const box = frame(el, "graph");
  box.appendChild(h("div", "edujax-title", model.get("title")));
  if (!model.get("svg")) {  // no Graphviz on the kernel's machine: the text and a hint
    box.appendChild(h("pre", "edujax-jaxpr", model.get("text")));
    box.appendChild(h("div", "edujax-hint", model.get("hint")));
    return;
  }
  const svgBox = h("div", "edujax-svg");
  toolbar(box, svgBox);
  svgBox.innerHTML = model.get("svg");
  svgBox.onclick = (event) => {
    const node = event.target.closest("g.node");
    if (node) lightUp(svgBox, node.id);
  };
  box.appendChild(svgBox);
}

export default { render };
