// Small helpers shared by the views' ES modules (imported by each of them).

/** An element with a class and text: h("td", "edujax-key", "['w']"). */
export function h(tag, cls, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

/** The outer box every view draws into, with the class the CSS is scoped to. */
export function frame(el, kind) {
  el.replaceChildren();
  const box = h("div", `edujax-view edujax-${kind}`);
  box.dataset.live = "true";  // (the static HTML has no such mark: tests tell them apart)
  el.appendChild(box);
  return box;
}

/** 211 μs: IPython's %timeit number format, as timing.py's format_time writes it. */
export function formatTime(seconds) {
  if (seconds <= 0) return "0 ns";
  const units = ["s", "ms", "μs", "ns"];
  const order = Math.min(-Math.floor(Math.floor(Math.log10(seconds)) / 3), 3);
  const value = seconds * Math.pow(1000, order);
  return `${Number(value.toPrecision(3))} ${units[order]}`;
}
