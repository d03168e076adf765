// Small DOM helpers: elements are built with text nodes only, so nothing the service sends is parsed as HTML.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') element.className = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

async function writeClipboard(text) {
  if (navigator.clipboard !== undefined) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain http on a LAN address has no Clipboard API: the older selection-and-copy way still works there.
  const field = h('textarea', { readonly: true, class: 'offscreen' }, text);
  document.body.append(field);
  field.select();
  const copied = document.execCommand('copy');
  field.remove();
  if (!copied) throw new Error('copy refused');
}

/** A labelled value in a monospace box, with a button that copies it and says so to screen readers. */
export function copyable(label, value) {
  const feedback = h('span', { class: 'copy-feedback', role: 'status' });
  const button = h('button', { type: 'button', class: 'copy', 'aria-label': `Copy ${label}` }, 'Copy');
  button.addEventListener('click', () => {
    writeClipboard(value).then(
      () => (feedback.textContent = 'Copied'),
      () => (feedback.textContent = 'Select the text to copy it'),
    );
  });
  return h(
    'div',
    { class: 'field' },
    h('dt', {}, label),
    h('dd', {}, h('code', { class: 'value', 'data-field': label }, value), button, feedback),
  );
}

export function plainField(label, ...value) {
  return h('div', { class: 'field' }, h('dt', {}, label), h('dd', {}, ...value));
}

export function timeElement(iso) {
  const date = new Date(iso);
  return h('time', { datetime: iso }, date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }));
}

/** `1 h 02 min 05 s`, `4 min 09 s`: the fund window's countdown. */
export function formatDuration(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const parts = [];
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (seconds >= 86400) return `${Math.floor(seconds / 86400)} d ${hours % 24} h`;
  if (hours > 0) parts.push(`${hours} h`);
  if (hours > 0 || minutes > 0) parts.push(`${String(minutes).padStart(hours > 0 ? 2 : 1, '0')} min`);
  parts.push(`${String(seconds % 60).padStart(parts.length > 0 ? 2 : 1, '0')} s`);
  return parts.join(' ');
}

export async function getJson(path) {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok) {
    const token = (await response.text()).trim();
    throw Object.assign(new Error(token || `HTTP ${response.status}`), { status: response.status, token });
  }
  return response.json();
}
