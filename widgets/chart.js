// A timing chart (the eager/jit bars or a size sweep): the SVG drawn in Python, and a
// button that shows the numbers behind it as a table.
import { h, frame, formatTime } from "./util.js";

function numbers(data) {
  const table = h("table");
  if (data.kind === "bars") {
    for (const [label, s] of Object.entries(data.seconds)) {
      const tr = table.appendChild(h("tr"));
      tr.append(h("th", "", label), h("td", "", formatTime(s)));
    }
  } else {
    const head = table.appendChild(h("tr"));
    head.appendChild(h("th", "", "size"));
    for (const n of data.sizes) head.appendChild(h("th", "", String(n)));
    for (const [label, times] of Object.entries(data.series)) {
      const tr = table.appendChild(h("tr"));
      tr.appendChild(h("th", "", label));
      for (const s of times) tr.appendChild(h("td", "", formatTime(s)));
    }
  }
  return table;
}

function render({ model, el }) {
  const box = frame(el, "timing");
  box.appendChild(h("div", "edujax-title", model.get("title")));
  const chart = h("div", "edujax-svg");
  chart.innerHTML = model.get("svg");
  box.appendChild(chart);
  if (model.get("note")) box.appendChild(h("div", "edujax-subtitle", model.get("note")));
  const bar = box.appendChild(h("div", "edujax-toolbar"));
  const button = bar.appendChild(h("button", "", "numbers"));
  const table = numbers(model.get("data"));
  table.style.display = "none";
  button.onclick = () => { table.style.display = table.style.display ? "" : "none"; };
  box.appendChild(table);
}

export default { render };
