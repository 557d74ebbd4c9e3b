// Small custom elements: a sparkline and a copy button.

const SVG = "http://www.w3.org/2000/svg";

/**
 * <tally-sparkline>: .values = [numbers, oldest first]; an SVG line scaled to
 * .scale (set one scale on sparklines that are compared) or else its maximum.
 */
class Sparkline extends HTMLElement {
  #values = [];
  #scale = 0;

  set scale(scale) {
    this.#scale = Number(scale) || 0;
    this.draw();
  }

  get scale() {
    return this.#scale;
  }

  set values(values) {
    this.#values = Array.isArray(values) ? values.map(Number) : [];
    this.draw();
  }

  get values() {
    return this.#values;
  }

  connectedCallback() {
    this.setAttribute("role", "img");
    this.draw();
  }

  draw() {
    const values = this.#values;
    const width = 120;
    const height = 24;
    const max = Math.max(1, this.#scale, ...values);
    const step = values.length > 1 ? width / (values.length - 1) : width;
    const points = values.map((v, i) => `${(i * step).toFixed(1)},${(height - 1 - (v / max) * (height - 2)).toFixed(1)}`);
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("preserveAspectRatio", "none");
    const area = document.createElementNS(SVG, "polygon");
    area.setAttribute("points", `0,${height} ${points.join(" ")} ${width},${height}`);
    area.setAttribute("class", "spark-area");
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", points.join(" "));
    line.setAttribute("class", "spark-line");
    svg.append(area, line);
    this.replaceChildren(svg);
    const total = values.reduce((a, b) => a + b, 0);
    this.setAttribute("aria-label", `${total} writes in the last ${values.length} seconds, at most ${Math.max(0, ...values)} a second`);
  }
}

/** <copy-button>: .text is what it copies; says "Copied" for a moment. */
class CopyButton extends HTMLElement {
  text = "";

  connectedCallback() {
    if (this.firstChild) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "small";
    button.textContent = "Copy";
    button.addEventListener("click", () => this.copy(button));
    this.append(button);
  }

  async copy(button) {
    try {
      await navigator.clipboard.writeText(this.text);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Select and copy";
    }
    setTimeout(() => { button.textContent = "Copy"; }, 1200);
  }
}

customElements.define("tally-sparkline", Sparkline);
customElements.define("copy-button", CopyButton);
