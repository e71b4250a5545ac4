/** The running scenarios: a card each with status, sink health and a live chart of its rate and latest values. */
import { ApiError, api } from './api.js';
import { charts, dropChart, setChartData, timeChart } from './charts.js';

/** A row of `GET /scenarios`. */
interface Listed {
  readonly id: string;
  readonly entry: string;
  readonly name: string;
  readonly status: string;
  readonly degraded: boolean;
  readonly last_sink_error: string | null;
  readonly signal_type: string;
  readonly total_events: number;
}

/** The fields of the statistics record (`GET /scenarios/{id}/stats`) the console shows. */
interface Stats {
  readonly current_rate: number;
  readonly consecutive_failures: number;
  readonly sink_retries: number;
  readonly in_gap: boolean;
  readonly in_burst: boolean;
}

interface SeriesList {
  readonly series: readonly { readonly name: string; readonly value: number }[];
  readonly total: number;
}

/** How often the cards are refreshed, and how many polls a chart keeps (5 minutes). */
export const POLL_MS = 1000;
const HISTORY = 300;
/** Series drawn per chart beside the rate; cards shown at most (each costs two requests a poll). */
const SERIES_SHOWN = 4;
const CARDS_SHOWN = 24;

/**
 * What a card has drawn so far: the poll times, the rates and the values of the series it follows (null before a
 * series was first listed); once its scenario ended, the statistics and series read after the end, which no longer
 * change.
 */
interface History {
  readonly card: HTMLElement;
  readonly times: number[];
  readonly rates: number[];
  names: readonly string[];
  readonly values: (number | null)[][];
  final?: { readonly stats: Stats; readonly series: SeriesList | undefined };
}

const histories = new Map<string, History>();

/**
 * Where the running view reports: a failed poll (`undefined` once one succeeds again), a failed Stop, and how many
 * scenarios have no card (`undefined` when every one has).
 */
export interface Reports {
  readonly poll: (message: string | undefined) => void;
  readonly stop: (message: string) => void;
  readonly hidden: (message: string | undefined) => void;
}

/**
 * Refreshes the cards every {@link POLL_MS}, one poll after the other. While polls fail (the server down or
 * restarting) the cards are dimmed (`stale`): as last read, they would otherwise still say running, at a rate.
 */
export function pollRunning(list: HTMLElement, reports: Reports): void {
  let failingSince: Date | undefined;
  const tick = async () => {
    try {
      await refresh(list, reports);
      failingSince = undefined;
      reports.poll(undefined);
    } catch (error) {
      failingSince ??= new Date();
      const since = failingSince.toLocaleTimeString();
      reports.poll(
        `Could not read the scenarios since ${since} (the cards are as last read): ${(error as Error).message}`,
      );
    }
    list.classList.toggle('stale', failingSince !== undefined);
    setTimeout(tick, POLL_MS);
  };
  void tick();
}

/**
 * Stops every listed scenario (`DELETE /scenarios/{id}` each), once `confirmed` says yes to their number: they are
 * every scenario of the server, other people's too.
 */
export async function deleteAll(confirmed: (count: number) => boolean): Promise<void> {
  const { scenarios } = await api<{ scenarios: Listed[] }>('GET', '/scenarios');
  if (scenarios.length === 0 || !confirmed(scenarios.length)) return;
  await Promise.all(scenarios.map((s) => removeScenario(s.id)));
}

/**
 * `DELETE /scenarios/{id}`; a 404 is done too: the scenario went since the page listed it (another client's DELETE,
 * or the server forgot it, ended, to make room for a start), which is what was asked.
 */
async function removeScenario(id: string): Promise<void> {
  try {
    await api('DELETE', `/scenarios/${encodeURIComponent(id)}`);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
  }
}

async function refresh(list: HTMLElement, reports: Reports): Promise<void> {
  const { scenarios } = await api<{ scenarios: Listed[] }>('GET', '/scenarios');
  const shown = scenarios.slice(0, CARDS_SHOWN);
  reports.hidden(
    shown.length < scenarios.length
      ? `Showing ${shown.length} of ${scenarios.length} scenarios (the first ${shown.length} listed).`
      : undefined,
  );
  for (const id of histories.keys()) if (!shown.some((s) => s.id === id)) forget(id);
  list.classList.toggle('empty', shown.length === 0);
  const now = Date.now();
  await Promise.all(
    shown.map(async (listed) => {
      // An ended scenario's chart stays as it ended, and its card asks the server nothing more.
      const known = histories.get(listed.id);
      if (known?.final) {
        describe(known.card, listed, known.final.stats, known.final.series);
        return;
      }
      const read = await readScenario(listed);
      // Removed since the list was read (a Stop here, a DELETE elsewhere): gone, as the next list would say.
      if (!read) return forget(listed.id);
      const [stats, series] = read;
      const history = known ?? addCard(list, listed, reports.stop);
      record(history, now, stats, series);
      describe(history.card, listed, stats, series);
      draw(listed.id, history);
      // Read after the end: the statistics are final.
      if (listed.status !== 'running') history.final = { stats, series };
    }),
  );
  inListOrder(list, shown);
}

/** A listed scenario's statistics and first series; undefined when the server no longer has it (404). */
async function readScenario(listed: Listed): Promise<[Stats, SeriesList | undefined] | undefined> {
  const path = `/scenarios/${encodeURIComponent(listed.id)}`;
  try {
    return await Promise.all([
      api<Stats>('GET', `${path}/stats`),
      listed.signal_type === 'metrics' ? api<SeriesList>('GET', `${path}/series?limit=${SERIES_SHOWN}`) : undefined,
    ]);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** Takes a scenario's card and chart away. */
function forget(id: string): void {
  const history = histories.get(id);
  if (!history) return;
  dropChart(`running:${id}`);
  history.card.remove();
  histories.delete(id);
}

/**
 * Puts the cards in the order of the list (start order): a new card is added when its statistics arrive, which
 * may be before an older one's. Cards already in order are not moved, so a focused button keeps its focus.
 */
function inListOrder(list: HTMLElement, shown: readonly Listed[]): void {
  const cards = shown.flatMap((listed) => histories.get(listed.id)?.card ?? []);
  if (cards.every((card, i) => list.children[i] === card)) return;
  list.append(...cards);
}

function addCard(list: HTMLElement, listed: Listed, onError: (message: string) => void): History {
  const card = document.createElement('article');
  card.className = 'card';
  card.dataset.id = listed.id;
  card.innerHTML = `<header><strong class="name"></strong> <span class="badge status"></span>
    <span class="badge health"></span><button class="stop" type="button"></button></header>
    <p class="facts"></p><p class="sink-error"></p><div class="chart"></div>`;
  const stop = card.querySelector<HTMLButtonElement>('.stop')!;
  stop.onclick = () => {
    stop.disabled = true;
    removeScenario(listed.id).catch((error: Error) => {
      stop.disabled = false;
      onError(`Could not ${stop.textContent!.toLowerCase()} ${listed.entry}: ${error.message}`);
    });
  };
  list.append(card);
  const history: History = { card, times: [], rates: [], names: [], values: [] };
  histories.set(listed.id, history);
  return history;
}

/**
 * Adds this poll to the history. A series is followed from the poll that first lists it, up to {@link SERIES_SHOWN}:
 * a scenario's label sets appear one tick after the other, and those the first poll did not see were never drawn.
 */
function record(history: History, now: number, stats: Stats, series: SeriesList | undefined): void {
  for (const { name } of series?.series ?? []) {
    if (history.names.length === SERIES_SHOWN || history.names.includes(name)) continue;
    history.names = [...history.names, name];
    history.values.push(history.times.map(() => null));
  }
  history.times.push(now);
  history.rates.push(stats.current_rate);
  history.names.forEach((name, i) => {
    history.values[i]!.push(series?.series.find((s) => s.name === name)?.value ?? null);
  });
  if (history.times.length > HISTORY) {
    for (const column of [history.times, history.rates, ...history.values]) column.shift();
  }
}

function describe(card: HTMLElement, listed: Listed, stats: Stats, series: SeriesList | undefined): void {
  const running = listed.status === 'running';
  // The entry's id is its name unless the file gave it another (or two entries share the name).
  card.querySelector('.name')!.textContent =
    listed.entry === listed.name ? listed.entry : `${listed.entry} · ${listed.name}`;
  // Deleting an ended scenario takes it off the list: its statistics and scrape buffer go with it.
  const stop = card.querySelector('.stop')!;
  stop.textContent = running ? 'Stop' : 'Remove';
  // A screen reader names the scenario the button acts on, as the card shows it.
  stop.setAttribute('aria-label', `${stop.textContent} ${listed.entry}`);
  const status = card.querySelector<HTMLElement>('.status')!;
  status.textContent = listed.status;
  status.dataset.status = listed.status;
  const health = card.querySelector<HTMLElement>('.health')!;
  // Failing from the first failure on: `degraded` waits for 30 s without a delivery.
  const sink = listed.degraded ? 'degraded' : stats.consecutive_failures > 0 ? 'failing' : 'healthy';
  health.textContent = `sink ${sink}`;
  health.dataset.health = sink;
  const state = stats.in_gap ? ' · in a gap' : stats.in_burst ? ' · in a burst' : '';
  const shown =
    series && series.total > series.series.length ? ` (${series.series.length} of ${series.total} drawn)` : '';
  // The rate of the last 5 s: none once the scenario ended.
  const rate = running ? ` · ${stats.current_rate.toFixed(1)}/s` : '';
  card.querySelector('.facts')!.textContent =
    `${listed.signal_type} · ${listed.total_events} events${rate}` +
    ` · ${series?.total ?? 0} series${shown} · ${stats.sink_retries} retries${state}`;
  card.querySelector('.sink-error')!.textContent = listed.last_sink_error
    ? `Last sink error (${stats.consecutive_failures} in a row): ${listed.last_sink_error}`
    : '';
}

/** Draws the history: a new chart when the series followed changed, else new data in the same chart. */
function draw(id: string, history: History): void {
  const key = `running:${id}`;
  const data: [number[], ...(number | null)[][]] = [history.times, ...history.values, history.rates];
  const chart = charts.get(key);
  if (chart && chart.series.length === data.length) {
    setChartData(key, data);
    return;
  }
  const series = [...history.names.map((label) => ({ label })), { label: 'events/s', scale: 'rate', rate: true }];
  timeChart(key, history.card.querySelector<HTMLElement>('.chart')!, series, data);
}
