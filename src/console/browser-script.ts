/**
 * The console's script, run by browsers (served by assets.ts, loaded with `defer`). Every page works
 * without it; it only adds what a page cannot do alone:
 *
 * - `data-copy="<selector>"` on a button copies the text of the element selected (a secret shown once);
 * - `data-confirm="<question>"` on a form asks before it is sent (a revocation, a deletion);
 * - `data-chart="bar|line|pie"` and `data-table="<selector>"` on a canvas draw the table's figures
 *   with Chart.js (loaded by the page): the first column labels, each other column a series;
 *   `data-stacked` stacks the series, `data-axis="y"` lays the bars along the horizontal axis;
 * - `data-poll="<url>"` on an element fetches that JSON every second, shows its `text` in the
 *   element, its `percent` in a `<progress>` inside, and reloads the page once `done` is true;
 * - `data-preview-title="<selector>"` and `data-preview-text="<selector>"` on an agreement's preview
 *   show in its heading and its text what is typed in those inputs, as it is typed.
 */
export const CONSOLE_SCRIPT = String.raw`
const ready = (run) => (document.readyState === 'loading' ? document.addEventListener('DOMContentLoaded', run) : run());

ready(() => {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const source = document.querySelector(button.dataset.copy);
      if (!source) return;
      await navigator.clipboard.writeText(source.textContent.trim());
      const label = button.textContent;
      button.textContent = button.dataset.copied || 'Copied';
      setTimeout(() => (button.textContent = label), 2000);
    });
  }

  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }

  for (const canvas of document.querySelectorAll('canvas[data-chart]')) {
    const table = document.querySelector(canvas.dataset.table);
    if (!table || !window.Chart) continue;
    const headings = [...table.querySelectorAll('thead th')].map((cell) => cell.textContent.trim());
    const rows = [...table.querySelectorAll('tbody tr')].map((row) => [...row.children].map((cell) => cell.textContent.trim()));
    const palette = ['#0b5cad', '#17603a', '#a4161a', '#7a4a00', '#5b2a86', '#00616b', '#4a5561'];
    new window.Chart(canvas, {
      type: canvas.dataset.chart,
      data: {
        labels: rows.map((row) => row[0]),
        datasets: headings.slice(1).map((label, index) => ({
          label,
          data: rows.map((row) => Number(row[index + 1]) || 0),
          backgroundColor: canvas.dataset.chart === 'pie' ? rows.map((_, i) => palette[i % palette.length]) : palette[index % palette.length],
          borderColor: palette[index % palette.length],
          // A line over many days reads better without a dot on each.
          pointRadius: rows.length > 31 ? 0 : 3,
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: canvas.dataset.axis === 'y' ? 'y' : 'x',
        scales: 'stacked' in canvas.dataset ? { x: { stacked: true }, y: { stacked: true } } : {},
      },
    });
  }

  for (const frame of document.querySelectorAll('[data-preview-title]')) {
    const sources = [[frame.dataset.previewTitle, 'h2'], [frame.dataset.previewText, '.agreement-text']];
    for (const [source, target] of sources) {
      const input = document.querySelector(source);
      const shown = frame.querySelector(target);
      if (input && shown) input.addEventListener('input', () => (shown.textContent = input.value));
    }
  }

  for (const element of document.querySelectorAll('[data-poll]')) {
    const progress = element.querySelector('progress');
    const text = element.querySelector('[data-poll-text]') || element;
    const tick = async () => {
      const response = await fetch(element.dataset.poll, { headers: { accept: 'application/json' } });
      if (!response.ok) return;
      const state = await response.json();
      if (state.text) text.textContent = state.text;
      if (progress && typeof state.percent === 'number') progress.value = state.percent;
      if (state.done) window.location.reload();
      else setTimeout(tick, 1000);
    };
    setTimeout(tick, 1000);
  }
});
`;
