// The pytree view: one row per node (key path, type, summary), drawn from the rows Python
// sends in depth-first order. A click on a node's row folds or unfolds its children.
import { h, frame } from "./util.js";

function rowElement(row) {
  const folds = !row.leaf && row.children > 0;  // (None, [] and {} have nothing to fold)
  const line = h("div", `edujax-row${folds ? " edujax-fold" : " edujax-leaf"}`);
  line.dataset.path = row.path;
  if (folds) line.appendChild(h("span", "edujax-arrow", "▾"));
  const key = h("span", "edujax-key", row.path || "(root)");
  key.title = row.path;
  line.append(key, " ", h("span", "edujax-type", row.type), " ",
              h("span", "edujax-summary", row.summary));
  return line;
}

function render({ model, el }) {
  const box = frame(el, "tree");
  // A stack of (depth, children container): rows come parent first, so each row goes into
  // the container of the nearest open node above it.
  const stack = [{ depth: -1, into: box }];
  for (const row of model.get("rows")) {
    while (stack[stack.length - 1].depth >= row.depth) stack.pop();
    const line = rowElement(row);
    stack[stack.length - 1].into.appendChild(line);
    if (!row.leaf && row.children > 0) {
      const children = h("div", "edujax-children");
      stack[stack.length - 1].into.appendChild(children);
      line.onclick = () => {
        const open = children.style.display !== "none";
        children.style.display = open ? "none" : "";
        line.querySelector(".edujax-arrow").textContent = open ? "▸" : "▾";
      };
      stack.push({ depth: row.depth, into: children });
    }
  }
  if (model.get("truncated")) box.appendChild(h("div", "edujax-hint", "… more rows not shown"));
}

export default { render };
