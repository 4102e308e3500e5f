// The dashboard's page (src/ui/ui-server.ts serves it): no framework, no build step. Everything the
// team wrote (subjects, messages, commands, diffs) may carry markup from a hostile model, so it is
// only ever set as text (textContent), never parsed as HTML.
const csrf = document.querySelector('meta[name="teamd-csrf"]').content;
const CARD_HEIGHT = 60;
const COLUMNS = [
  { key: 'pending', title: 'Pending / blocked' },
  { key: 'in_progress', title: 'In progress' },
  { key: 'needs-merge', title: 'Needs merge' },
  { key: 'completed', title: 'Completed' },
  { key: 'failed', title: 'Failed / cancelled' },
];

const state = { tasks: new Map(), members: [], requests: [], messages: [], daemon: null, rosterError: null, problems: 0, loaded: false };
const columns = new Map();
let openTask = null;
let schedule = null;
let drawQueued = false;

function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'text') element.textContent = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) element.append(child instanceof Node ? child : String(child));
  return element;
}

function notice(text) {
  const box = document.getElementById('notice');
  box.textContent = text;
  clearTimeout(notice.timer);
  notice.timer = setTimeout(() => (box.textContent = ''), 6000);
}

async function post(action, body) {
  const response = await fetch(`/api/${action}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-teamd-csrf': csrf },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error?.message ?? `the server answered ${response.status}`);
  return answer.said;
}

function columnOf(task) {
  if (task.status === 'pending') return 'pending';
  if (task.status === 'in_progress') return 'in_progress';
  if (task.status === 'completed') return task.worktree === 'committed' || task.worktree === 'needs-merge' ? 'needs-merge' : 'completed';
  return 'failed';
}

function buildBoard() {
  const board = document.getElementById('board');
  for (const { key, title } of COLUMNS) {
    const heading = h('h2', { id: `col-${key}` }, title, ' ', h('span', { class: 'count' }));
    const cards = h('div', { class: 'cards', role: 'list', 'aria-labelledby': `col-${key}`, tabindex: 0 });
    const spacer = h('div', { class: 'spacer' });
    cards.append(spacer);
    cards.addEventListener('scroll', () => drawColumn(columns.get(key)), { passive: true });
    board.append(h('div', { class: 'column', 'data-column': key }, heading, cards));
    columns.set(key, { key, heading, cards, spacer, items: [], drawn: new Map() });
  }
}

function cardText(task) {
  const parts = [];
  if (task.owner) parts.push(task.owner);
  const ids = (list) => list.map((id) => `#${id}`).join(', ');
  if (task.stuck) parts.push(`stuck: a blocker failed`);
  else if (task.waitingOn.length) parts.push(`waits on ${ids(task.waitingOn)}`);
  else if (task.status === 'pending') parts.push('ready');
  if (task.blockedBy.length && !task.waitingOn.length) parts.push(`after ${ids(task.blockedBy)}`);
  if (task.worktree) parts.push(`worktree ${task.worktree}`);
  return parts.join(' · ');
}

function cardElement(task, index) {
  const classes = ['card', task.stuck ? 'stuck' : '', task.status === 'failed' ? 'failed' : ''].join(' ').trim();
  const card = h(
    'a',
    { class: classes, href: `#task/${task.id}`, role: 'listitem', 'data-task': task.id, 'data-status': task.status },
    h('span', { class: 'subject', text: `#${task.id} ${task.subject}` }),
    h('small', { text: cardText(task) }),
  );
  // Through the CSSOM: the page's policy allows no style attributes.
  card.style.top = `${index * CARD_HEIGHT + 4}px`;
  return card;
}

/** Only the cards in view (and a screen either side) are in the page: a column of 10,000 costs what one of 30 does. */
function drawColumn(column) {
  const { cards, items, drawn } = column;
  const first = Math.max(0, Math.floor(cards.scrollTop / CARD_HEIGHT) - 20);
  const last = Math.min(items.length, Math.ceil((cards.scrollTop + (cards.clientHeight || 600)) / CARD_HEIGHT) + 20);
  const wanted = new Map();
  for (let i = first; i < last; i++) wanted.set(`${items[i].id}@${i}@${items[i].updatedAt}`, [items[i], i]);
  for (const [key, element] of drawn) {
    if (wanted.has(key)) continue;
    element.remove();
    drawn.delete(key);
  }
  for (const [key, [task, index]] of wanted) if (!drawn.has(key)) drawn.set(key, cards.appendChild(cardElement(task, index)));
}

function drawBoard() {
  const grouped = new Map(COLUMNS.map(({ key }) => [key, []]));
  for (const task of state.tasks.values()) grouped.get(columnOf(task)).push(task);
  for (const [key, items] of grouped) {
    const newestFirst = key === 'completed' || key === 'failed' || key === 'needs-merge';
    items.sort(newestFirst ? (a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : b.id - a.id) : (a, b) => a.id - b.id);
    const column = columns.get(key);
    column.items = items;
    column.spacer.style.height = `${items.length * CARD_HEIGHT + 8}px`;
    column.heading.querySelector('.count').textContent = `(${items.length})`;
    drawColumn(column);
  }
}

function usageText(usage) {
  if (!usage) return '';
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const share = input ? Math.round((usage.cacheReadTokens / input) * 100) : 0;
  return `${input} in / ${usage.outputTokens} out, ${share}% cached`;
}

function drawTeam() {
  const rows = state.members.map((m) =>
    h(
      'tr',
      { 'data-member': m.name },
      h('th', { scope: 'row', text: m.name }),
      h('td', { text: m.role, class: 'wide' }),
      h('td', { text: m.host ? `${m.status} on ${m.host}` : m.status }),
      h('td', {}, m.task ? h('a', { href: `#task/${m.task}`, text: `#${m.task}` }) : ''),
      h('td', { text: m.model, class: 'wide' }),
      h('td', { text: usageText(m.usage), class: 'wide' }),
      h('td', { text: String(m.restarts), class: 'wide' }),
      h('td', { class: 'problem', text: m.problem ?? '' }),
    ),
  );
  const head = ['Name', 'Role', 'Status', 'Task', 'Model', 'Tokens', 'Restarts', 'Problem'].map((title) =>
    h('th', { scope: 'col', text: title, class: ['Role', 'Model', 'Tokens', 'Restarts'].includes(title) ? 'wide' : null }),
  );
  const team = document.getElementById('team');
  const note = state.rosterError ? h('p', { class: 'problem', text: `the roster cannot be read: ${state.rosterError}` }) : null;
  team.replaceChildren(
    ...[note, h('table', { class: 'team-table' }, h('thead', {}, h('tr', {}, head)), h('tbody', {}, rows)), ...scheduleParts()].filter(Boolean),
  );
  const select = document.getElementById('send-to');
  const chosen = select.value;
  select.replaceChildren(...['lead', ...state.members.map((m) => m.name)].map((name) => h('option', { value: name, text: name })));
  if (chosen) select.value = chosen;
}

/** A table with a header row, or a line saying there is nothing. */
function table(label, titles, rows, none) {
  if (rows.length === 0) return h('p', { text: none });
  const head = h(
    'tr',
    {},
    titles.map((title) => h('th', { scope: 'col', text: title })),
  );
  return h('table', { class: 'team-table', 'aria-label': label }, h('thead', {}, head), h('tbody', {}, rows));
}

/** Background jobs and cron jobs (read when the Team view is shown, and again as the team changes while it is). */
function scheduleParts() {
  if (!schedule) return [];
  const time = (at) => (at ? new Date(at).toLocaleString() : '-');
  const jobs = schedule.jobs.map((job) =>
    h(
      'tr',
      { 'data-job': job.id },
      h('th', { scope: 'row', text: job.id }),
      h('td', { text: job.state }),
      h('td', { text: job.exitCode !== null ? String(job.exitCode) : (job.signal ?? '-') }),
      h('td', { text: time(job.startedAt) }),
      h('td', {}, h('code', { text: job.command })),
    ),
  );
  const cron = schedule.cron.map((job) =>
    h(
      'tr',
      { 'data-cron': job.id },
      h('th', { scope: 'row', text: job.id }),
      h('td', { text: job.when }),
      h('td', { text: `${job.task ? 'task for ' : ''}${job.to}` }),
      h('td', { text: job.message }),
      h('td', { text: time(job.nextAt) }),
    ),
  );
  return [
    h('h3', { text: 'Background jobs' }),
    table('Background jobs', ['Job', 'State', 'Exit', 'Started', 'Command'], jobs, 'no background jobs'),
    h('h3', { text: 'Scheduled' }),
    table('Scheduled jobs', ['Job', 'When', 'To', 'Message', 'Next run'], cron, 'no scheduled jobs'),
    ...schedule.problems.map((problem) => h('p', { class: 'problem', text: problem })),
  ];
}

async function loadSchedule() {
  if (loadSchedule.running) return void (loadSchedule.again = true);
  loadSchedule.running = true;
  try {
    const response = await fetch('/api/schedule', { credentials: 'same-origin' });
    if (response.ok) schedule = await response.json();
  } catch {
    // The feed says when the server is gone; the next change loads it again.
  } finally {
    loadSchedule.running = false;
  }
  drawTeam();
  if (loadSchedule.again) {
    loadSchedule.again = false;
    void loadSchedule();
  }
}

function requestElement(request) {
  const what = request.kind === 'plan' ? 'a plan' : `to run ${request.tool}`;
  const shown = request.kind === 'plan' ? request.plan : (request.input?.command ?? request.input?.path ?? JSON.stringify(request.input));
  const reason = h('input', {
    type: 'text',
    'aria-label': `why you reject ${request.from}'s request`,
    placeholder: 'why (the teammate reads it)',
    hidden: true,
  });
  const answer = async (body, button) => {
    button.disabled = true;
    try {
      notice(await post('answer', { requestId: request.requestId, ...body }));
    } catch (error) {
      notice(error.message);
      button.disabled = false;
    }
  };
  const reject = h('button', {
    text: 'Reject',
    onclick: (event) => {
      if (reason.hidden) {
        reason.hidden = false;
        reason.focus();
        return;
      }
      if (!reason.value.trim()) return reason.focus();
      void answer({ approve: false, feedback: reason.value.trim() }, event.currentTarget);
    },
  });
  reason.addEventListener('keydown', (event) => event.key === 'Enter' && reject.click());
  return h(
    'article',
    { class: 'request', 'data-request': request.requestId, 'aria-label': `${request.from} asks ${what}` },
    h('strong', { text: `${request.from} asks ${what}` }),
    request.taskId ? h('span', {}, ' for ', h('a', { href: `#task/${request.taskId}`, text: `task #${request.taskId}` })) : null,
    h('pre', { text: shown }),
    h(
      'div',
      { class: 'actions' },
      h('button', { class: 'primary', text: 'Approve', onclick: (event) => void answer({ approve: true }, event.currentTarget) }),
      request.rule
        ? h('button', { text: `Always allow ${request.rule}`, onclick: (event) => void answer({ approve: true, always: true }, event.currentTarget) })
        : null,
      reject,
      reason,
    ),
  );
}

function drawRequests() {
  document.getElementById('requests').replaceChildren(...state.requests.map(requestElement));
}

function drawMessages(fresh) {
  const chat = document.getElementById('chat');
  const atEnd = chat.scrollTop + chat.clientHeight >= chat.scrollHeight - 4;
  const items = (fresh ?? state.messages).map((m) =>
    h(
      'li',
      {},
      h('div', { class: 'meta', text: `${m.from} → ${m.to} · ${m.type} · ${new Date(m.timestamp).toLocaleString()}` }),
      h('div', { class: 'content', text: m.content }),
    ),
  );
  if (fresh) chat.append(...items);
  else chat.replaceChildren(...items);
  if (atEnd || !fresh) chat.scrollTop = chat.scrollHeight;
}

function drawStatus(live) {
  const daemon = state.daemon ? `daemon pid ${state.daemon.pid}` : 'no daemon running';
  const problems = state.problems ? `, ${state.problems} unreadable task file${state.problems === 1 ? '' : 's'}` : '';
  document.getElementById('status').textContent =
    `${live ? 'live' : 'reconnecting…'} · ${daemon} · ${state.members.length} teammates · ${state.tasks.size} tasks${problems}`;
}

function diffElement(text) {
  return h(
    'pre',
    { class: 'block diff' },
    ...text.split('\n').map((line) => h('span', { class: line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : null, text: `${line}\n` })),
  );
}

async function drawTask(id) {
  const view = document.getElementById('task');
  let page;
  try {
    const response = await fetch(`/api/tasks/${id}`, { credentials: 'same-origin' });
    page = await response.json();
    if (!response.ok) throw new Error(page.error?.message ?? `the server answered ${response.status}`);
  } catch (error) {
    view.replaceChildren(h('p', { class: 'problem', text: error.message }));
    return;
  }
  if (openTask !== id) return;
  const { task, turns, turnsNote, log, diff, mergeable } = page;
  const owner = state.members.find((m) => m.name === task.owner && m.task === task.id);
  const merge = mergeable
    ? h('button', {
        class: 'primary',
        text: `Merge ${task.worktree.branch} into ${task.worktree.base}`,
        onclick: async (event) => {
          event.currentTarget.disabled = true;
          try {
            notice(await post('merge', { task: task.id }));
          } catch (error) {
            notice(error.message);
          }
          void drawTask(id);
        },
      })
    : null;
  const parts = [
    h('p', {}, h('a', { href: '#board', text: '← Board' })),
    h('h2', { text: `#${task.id} ${task.subject}` }),
    h('p', {
      text: `${task.status}${task.owner ? ` · ${task.owner}` : ''}${task.blockedBy.length ? ` · blocked by ${task.blockedBy.map((b) => `#${b}`).join(', ')}` : ''} · claim ${task.claim}`,
    }),
    h('h3', { text: 'Description' }),
    h('pre', { class: 'block', text: task.description || '(none)' }),
    owner?.todos?.length ? h('h3', { text: 'Plan' }) : null,
    owner?.todos?.length
      ? h(
          'ol',
          {},
          owner.todos.map((todo) => h('li', { text: `[${todo.status}] ${todo.content}` })),
        )
      : null,
    h('h3', { text: 'Result' }),
    h('pre', { class: 'block', text: task.result ?? '(not finished)' }),
    h('h3', { text: 'Conversation' }),
    turnsNote ? h('p', { class: 'note', text: turnsNote }) : null,
    turns.length ? h('ol', { class: 'timeline turns' }, turns.map(turnElement)) : h('p', { text: 'no conversation for this task yet' }),
    h('h3', { text: 'Log' }),
    log.length ? h('ol', { class: 'timeline' }, log.map(stepElement)) : h('p', { text: 'no log lines for this task yet' }),
    diff ? h('h3', { text: `Changes (${diff.of})` }) : null,
    diff ? diffElement(diff.text + (diff.cut ? '\n… cut: git diff shows the rest' : '')) : null,
    merge,
  ];
  view.replaceChildren(...parts.filter((part) => part !== null));
}

const TURN_LABELS = { said: 'model', call: 'calls', result: 'result of', told: 'teamd' };

/** One step of the task's conversation: what the model said, a tool call and its input, a result, what teamd told it. */
function turnElement(turn) {
  const label = `${TURN_LABELS[turn.kind] ?? turn.kind}${turn.tool ? ` ${turn.tool}` : ''}${turn.error ? ' (error)' : ''}`;
  return h('li', { class: `turn-${turn.kind}${turn.error ? ' level-error' : ''}` }, h('span', { text: label }), h('pre', { class: 'step', text: turn.text }));
}

/** One line of the task's log as a step: a tool call with its input, its result with its output, a decision with its reason. */
function stepElement(entry) {
  const fields = entry.fields;
  const input = fields.input && typeof fields.input === 'object' ? (fields.input.command ?? fields.input.path ?? JSON.stringify(fields.input)) : null;
  const detail = fields.output ?? input ?? fields.why ?? fields.reason ?? null;
  const time = entry.time ? new Date(entry.time).toLocaleTimeString() : '';
  const level = entry.level >= 50 || fields.isError === true ? 'level-error' : entry.level >= 40 ? 'level-warn' : null;
  const text = typeof detail === 'string' && detail.length > 2000 ? `${detail.slice(0, 2000)}…` : detail;
  return h(
    'li',
    { class: level },
    h('span', { text: `${time} ${entry.who}: ${entry.msg}${fields.tool ? ` ${fields.tool}` : ''}` }),
    text ? h('pre', { class: 'step', text: String(text) }) : null,
  );
}

function route() {
  const [view, id] = location.hash.slice(1).split('/');
  const shown = view === 'task' && /^[1-9][0-9]*$/.test(id ?? '') ? 'task' : ['team', 'messages'].includes(view) ? view : 'board';
  for (const section of document.querySelectorAll('.view')) section.hidden = section.id !== shown;
  for (const link of document.querySelectorAll('nav a')) {
    if (link.dataset.view === shown) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (shown === 'team') void loadSchedule();
  openTask = shown === 'task' ? Number(id) : null;
  if (openTask) void drawTask(openTask);
  if (shown === 'board') drawBoard();
}

function queueDraw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => {
    drawQueued = false;
    drawBoard();
  });
}

function applySnapshot(snapshot) {
  state.tasks = new Map(snapshot.tasks.map((task) => [task.id, task]));
  Object.assign(state, {
    members: snapshot.members,
    requests: snapshot.requests,
    messages: snapshot.messages,
    daemon: snapshot.daemon,
    rosterError: snapshot.rosterError,
    problems: snapshot.problems,
    loaded: true,
  });
  drawBoard();
  drawTeam();
  drawRequests();
  drawMessages();
  drawStatus(true);
  document.body.dataset.loaded = 'true';
  // What npm run bench -- ui reads: the whole board drawn, from the start of the page's load.
  performance.mark('teamd-board-drawn');
}

function applyChange(delta) {
  for (const task of delta.tasks ?? []) state.tasks.set(task.id, task);
  for (const id of delta.removed ?? []) state.tasks.delete(id);
  if (delta.members) {
    state.members = delta.members;
    drawTeam();
    if (!document.getElementById('team').hidden) void loadSchedule();
  }
  if (delta.requests) {
    state.requests = delta.requests;
    drawRequests();
  }
  const known = new Set(state.messages.map((m) => m.id));
  const fresh = (delta.messages ?? []).filter((m) => !known.has(m.id));
  if (fresh.length) {
    state.messages = [...state.messages, ...fresh];
    drawMessages(fresh);
  }
  for (const key of ['daemon', 'rosterError', 'problems']) if (key in delta) state[key] = delta[key];
  if (delta.tasks || delta.removed) queueDraw();
  if (openTask && (delta.tasks ?? []).some((task) => task.id === openTask)) void drawTask(openTask);
  drawStatus(true);
}

function connect() {
  const events = new EventSource('/api/events');
  events.addEventListener('snapshot', (event) => applySnapshot(JSON.parse(event.data)));
  events.addEventListener('change', (event) => applyChange(JSON.parse(event.data)));
  events.addEventListener('problem', (event) => notice(JSON.parse(event.data).message));
  events.addEventListener('error', () => drawStatus(false));
}

document.getElementById('send').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const text = form.elements.content;
  try {
    notice(await post('send', { to: form.elements.to.value, content: text.value }));
    text.value = '';
  } catch (error) {
    notice(error.message);
  }
});
window.addEventListener('hashchange', route);
buildBoard();
route();
connect();
