/** The preview: the next minutes of every entry of the editor's scenario, computed by the server in virtual time. */
import { api } from './api.js';
import type { Preview } from '../../lib/preview/types.js';
import { charts, dropChart, timeChart } from './charts.js';
import { ERROR_RATIO, isRate, legendOf } from '../../lib/preview/points.js';

/** Points a preview asks for: one per 2 pixels of a chart about 480 pixels wide. */
export const PREVIEW_POINTS = 240;

/**
 * Asks the server for the next `minutes` of `text` (from now: `start`) and draws a chart per entry in `target`,
 * replacing the last preview. Aborted by `signal`, it draws nothing and rejects.
 */
export async function showPreview(
  text: string,
  minutes: number,
  target: HTMLElement,
  signal: AbortSignal,
): Promise<Preview> {
  const query = `for=${minutes}m&points=${PREVIEW_POINTS}&start=${Date.now()}`;
  const preview = await api<Preview>('POST', `/preview?${query}`, text, { signal });
  signal.throwIfAborted();
  for (const key of [...charts.keys()].filter((k) => k.startsWith('preview:'))) dropChart(key);
  target.replaceChildren();
  const times = Array.from({ length: preview.points }, (_, i) => preview.from + i * preview.step);
  for (const entry of preview.entries) {
    const card = document.createElement('article');
    card.className = 'card';
    // Labels every series shares are written once, by the title, as svc plot writes them; the legend names the rest.
    const legend = legendOf(entry.series);
    const title = document.createElement('header');
    title.textContent = `${entry.id} · ${entry.type}${entry.unit ? ` (${entry.unit})` : ''}${legend.shared ? ` ${legend.shared}` : ''}`;
    const chart = document.createElement('div');
    card.append(title, chart);
    target.append(card);
    timeChart(
      `preview:${entry.id}`,
      chart,
      // A series without labels is named `{}`: the entry's id says more in the legend.
      entry.series.map((s, i) => ({
        label: s.name === '{}' ? entry.id : legend.names[i]!,
        scale: s.name === ERROR_RATIO ? 'ratio' : undefined,
        rate: isRate(entry.unit),
      })),
      [times, ...entry.series.map((s) => [...s.values])],
      entry.marks,
    );
  }
  return preview;
}
