// The arrivals chart of a meetup's summary: bars per 15 minutes (or wider bars over a longer span),
// drawn as SVG with DOM APIs (createElementNS and textContent: no innerHTML, no chart service).
import { formatTime } from "../core/dom.js";
import { t } from "../core/i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const HEIGHT = 220;
const PAD = { top: 16, right: 8, bottom: 34, left: 34 };

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// arrivalsChart([{start, count}], minutes, width) -> an <svg> drawn for `width` pixels (its container's
// width, so text keeps its size on a phone and on a laptop) that still scales if the container changes.
export function arrivalsChart(bars, minutes, width = 640) {
  const WIDTH = Math.max(280, Math.round(width));
  const total = bars.reduce((sum, bar) => sum + bar.count, 0);
  const peak = Math.max(1, ...bars.map((bar) => bar.count));
  const chart = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: "chart",
    role: "img",
    "aria-label": t("chart.label", {
      minutes,
      bars: bars.map((b) => `${formatTime(b.start)} ${b.count}`).join(", "),
    }),
  });
  chart.append(svg("title", {}, t("chart.title", { count: total, minutes })));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const step = innerW / bars.length;
  const y = (count) => PAD.top + innerH - (count / peak) * innerH;
  for (const value of [0, Math.ceil(peak / 2), peak].filter((v, i, all) => all.indexOf(v) === i)) {
    chart.append(
      svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(value), y2: y(value), class: "grid" }),
      svg("text", { x: PAD.left - 6, y: y(value) + 4, "text-anchor": "end", class: "axis" }, String(value)),
    );
  }
  const labelEvery = Math.max(1, Math.ceil(bars.length / Math.floor(innerW / 64)));
  bars.forEach((bar, n) => {
    const x = PAD.left + n * step;
    const rect = svg("rect", {
      x: x + step * 0.12,
      y: y(bar.count),
      width: Math.max(1, step * 0.76),
      height: Math.max(0, PAD.top + innerH - y(bar.count)),
      class: "bar",
      rx: 2,
    });
    rect.append(svg("title", {}, `${formatTime(bar.start)}: ${bar.count}`));
    chart.append(rect);
    if (bar.count) {
      chart.append(
        svg(
          "text",
          { x: x + step / 2, y: y(bar.count) - 4, "text-anchor": "middle", class: "value" },
          String(bar.count),
        ),
      );
    }
    if (n % labelEvery === 0) {
      chart.append(
        svg(
          "text",
          { x: x + step / 2, y: HEIGHT - PAD.bottom + 18, "text-anchor": "middle", class: "axis" },
          formatTime(bar.start),
        ),
      );
    }
  });
  return chart;
}
