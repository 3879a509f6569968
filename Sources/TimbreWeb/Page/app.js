// Timbre's control page: one WebSocket (protocol 1, docs/WEB.md), no libraries, no build step.
// State comes from the host (hello, state, meters frames); every change is sent as a live
// command and comes back in the next state broadcast, so all pages stay in sync.
'use strict';

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
};
const svg = (tag, attrs = {}) => {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};
const fmt = (x, digits = 1) => (x === null || x === undefined || !isFinite(x) || x <= -150) ? '−∞' : Number(x).toFixed(digits);

const page = {
  socket: null, schema: null, state: null, meters: null, nextID: 1, pending: new Map(),
  holds: new Map(), dragging: null, retry: 500, lastStateText: '',
};

// ---- connection ------------------------------------------------------------------------
function connect() {
  const token = new URLSearchParams(location.search).get('token');
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws' + (token ? '?token=' + encodeURIComponent(token) : '');
  const ws = new WebSocket(url);
  page.socket = ws;
  ws.onopen = () => { page.retry = 500; setConnection(true); };
  ws.onclose = () => {
    setConnection(false);
    page.socket = null;
    setTimeout(connect, page.retry);
    page.retry = Math.min(page.retry * 2, 5000);
  };
  ws.onmessage = (event) => {
    let m;
    try { m = JSON.parse(event.data); } catch { return; }
    if (m.type === 'hello') { page.schema = m.schema; applyState(m.state); }
    else if (m.type === 'state') applyState(m.state);
    else if (m.type === 'meters') applyMeters(m);
    else if (m.type === 'reply') reply(m);
    else if (m.type === 'event') log(m.text);
  };
}

function setConnection(ok) {
  const c = $('connection');
  c.textContent = ok ? 'connected' : 'reconnecting…';
  c.classList.toggle('ok', ok);
}

/// Sends a live command (the stdin grammar); the reply is logged.
function command(text) {
  if (!page.socket || page.socket.readyState !== WebSocket.OPEN) { log('not connected: ' + text, true); return; }
  const id = page.nextID++;
  page.pending.set(id, text);
  page.socket.send(JSON.stringify({ v: 1, id, command: text }));
}

/// Sets a parameter to a string, boolean or number (choices like an EQ band's shape).
function setValue(address, value) {
  if (!page.socket || page.socket.readyState !== WebSocket.OPEN) return;
  const id = page.nextID++;
  page.pending.set(id, 'set ' + address + ' ' + value);
  page.socket.send(JSON.stringify({ v: 1, id, set: address, value }));
}

function reply(m) {
  const what = page.pending.get(m.id);
  page.pending.delete(m.id);
  if (!m.ok) log((what ? what + ': ' : '') + m.error, true);
  else if (m.text && !/^set /.test(m.text)) log(m.text);
}

function log(text, error = false) {
  const list = $('log');
  list.append(el('li', { class: error ? 'error' : '', text }));
  while (list.children.length > 50) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
}

// A control sends at most one command every 30 ms while it moves (the newest value wins; a
// timer, not an animation frame, so a page in the background still sends).
const throttled = new Map();
function sendSoon(key, send) {
  const first = !throttled.has(key);
  throttled.set(key, send);
  if (first) setTimeout(() => { const s = throttled.get(key); throttled.delete(key); s(); }, 30);
}

// ---- state -----------------------------------------------------------------------------
function applyState(state) {
  page.state = state;
  $('preset-name').textContent = state.preset;
  $('engine-info').textContent = `${state.sampleRate} Hz, buffer ${state.bufferSize}`;
  document.title = 'Timbre – ' + state.preset;
  renderEQ();
  renderMixer();
  renderPlayers();
  renderNodes();
  renderRecordSources();
  renderPresets();
}

/// Every node of the document with the address live commands use (its id, or chain[i] in a
/// chain preset), the bus it sits on, and its JSON object.
function nodesOf(doc) {
  const out = [];
  if (Array.isArray(doc.chain)) {
    doc.chain.forEach((n, i) => out.push({ address: n.id || `chain[${i}]`, bus: 'chain', node: n }));
  } else if (doc.graph) {
    const add = (bus, chain) => (chain || []).forEach((n, i) => out.push({ address: n.id || null, bus, node: n, index: i }));
    (doc.graph.channels || []).forEach((c) => add(c.id, c.chain));
    (doc.graph.groups || []).forEach((g) => add(g.id, g.chain));
    add(masterID(doc), (doc.graph.master || {}).chain);
  }
  return out;
}
const masterID = (doc) => ((doc.graph || {}).master || {}).id || 'master';

// ---- meters ----------------------------------------------------------------------------
function applyMeters(frame) {
  page.meters = frame;
  const box = $('meters');
  const names = Object.keys(frame.meters || {}).sort((a, b) => (a === 'master' ? -1 : b === 'master' ? 1 : a.localeCompare(b)));
  for (const name of names) {
    const m = frame.meters[name];
    if (m.type === 'spectrum') { drawSpectrum(name, m); continue; }
    let row = box.querySelector(`[data-meter="${CSS.escape(name)}"]`);
    const channels = m.channels || [];
    if (!row || row.dataset.channels !== String(channels.length)) {
      if (row) row.remove();
      row = el('div', { class: 'meter', 'data-meter': name, 'data-channels': channels.length },
        el('div', { class: 'name', text: name }),
        el('div', { class: 'bars' }, ...channels.map((_, c) => el('div', { class: 'bar', role: 'meter', 'aria-label': `${name} channel ${c + 1} level`, 'aria-valuemin': -60, 'aria-valuemax': 0 },
          el('div', { class: 'rms' }), el('div', { class: 'peak' }), el('div', { class: 'hold' })))),
        el('div', { class: 'readout' }));
      box.append(row);
    }
    const now = performance.now();
    channels.forEach((c, k) => {
      const bar = row.querySelectorAll('.bar')[k];
      const peak = c.peakPower ?? -160, rms = c.averagePower ?? -160;
      const key = name + '/' + k;
      const hold = page.holds.get(key);
      if (!hold || peak >= hold.db || now - hold.t > 2000) page.holds.set(key, { db: peak, t: now });
      const held = page.holds.get(key).db;
      const pct = (db) => Math.max(0, Math.min(100, (db + 60) / 60 * 100));
      bar.querySelector('.peak').style.width = pct(peak) + '%';
      bar.querySelector('.peak').className = 'peak' + (peak > -0.1 ? ' over' : peak > -6 ? ' hot' : '');
      bar.querySelector('.rms').style.width = pct(rms) + '%';
      bar.querySelector('.hold').style.left = `calc(${pct(held)}% - 2px)`;
      bar.setAttribute('aria-valuenow', Math.max(-60, Math.round(peak * 10) / 10));
      bar.setAttribute('aria-valuetext', `peak ${fmt(peak)} dBFS, RMS ${fmt(rms)} dBFS`);
    });
    const parts = channels.map((c, k) =>
      `<span>${channels.length > 1 ? (k + 1) + ': ' : ''}peak <b data-peak="${k}">${fmt(c.peakPower)}</b> RMS <b data-rms="${k}">${fmt(c.averagePower)}</b> hold <b>${fmt(page.holds.get(name + '/' + k).db)}</b> dBFS</span>`);
    if (m.momentaryLUFS !== undefined) parts.push(`<span>M <b data-lufs="momentary">${fmt(m.momentaryLUFS)}</b> S <b>${fmt(m.shortTermLUFS)}</b> I <b data-lufs="integrated">${fmt(m.integratedLUFS)}</b> LUFS</span>`);
    if (m.gainReductionDB !== undefined) parts.push(`<span>GR <b data-gr>${fmt(m.gainReductionDB)}</b> dB (max ${fmt(m.maxGainReductionDB)})</span>`);
    row.querySelector('.readout').innerHTML = parts.join('');
  }
  for (const row of box.querySelectorAll('.meter')) if (!(row.dataset.meter in (frame.meters || {}))) row.remove();
  updatePlayerTimes(frame.players || {});
  renderTakes(frame.takes || []);
  if (frame.dspLoadPercent !== undefined && page.state) {
    $('engine-info').textContent = `${page.state.sampleRate} Hz, buffer ${page.state.bufferSize}, DSP ${fmt(frame.dspLoadPercent)} %, xruns ${frame.xruns}`;
  }
}

function drawSpectrum(name, m) {
  $('spectrum-section').hidden = false;
  let box = $('spectra').querySelector(`[data-spectrum="${CSS.escape(name)}"]`);
  if (!box) {
    box = el('div', { class: 'spectrum', 'data-spectrum': name }, el('div', { class: 'name', text: name }),
      el('canvas', { role: 'img', 'aria-label': `${name}: spectrum` }));
    $('spectra').append(box);
  }
  const canvas = box.querySelector('canvas');
  const w = canvas.clientWidth * devicePixelRatio, h = canvas.clientHeight * devicePixelRatio;
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, w, h);
  const x = (f) => Math.log(f / 20) / Math.log(1000) * w, y = (db) => (1 - (db + 100) / 100) * h;
  g.strokeStyle = '#262a31';
  for (const f of [50, 100, 200, 500, 1000, 2000, 5000, 10000]) { g.beginPath(); g.moveTo(x(f), 0); g.lineTo(x(f), h); g.stroke(); }
  const bands = m.bands || [];
  const holdKey = 'spectrum/' + name, now = performance.now();
  const hold = page.holds.get(holdKey) || { levels: [], t: now };
  if (now - hold.t > 3000) { hold.levels = []; hold.t = now; }
  const bw = w / Math.max(1, bands.length);
  bands.forEach((b, i) => {
    const level = b.levelDB ?? -160;
    hold.levels[i] = Math.max(hold.levels[i] ?? -160, level);
    g.fillStyle = '#4fb3ff';
    g.fillRect(x(b.frequencyHz) - bw / 2 + 1, y(level), bw - 2, h - y(level));
    g.fillStyle = '#e6e8eb';
    g.fillRect(x(b.frequencyHz) - bw / 2 + 1, y(hold.levels[i]), bw - 2, 2);
  });
  page.holds.set(holdKey, hold);
  canvas.setAttribute('aria-label', `${name}: spectrum, peak ${fmt(m.peakFrequencyHz, 0)} Hz at ${fmt(m.peakLevelDB)} dB`);
}

// ---- EQ curve --------------------------------------------------------------------------
const EQ = { w: 800, h: 300, fMin: 20, fMax: 20000, dbMax: 24 };
const eqX = (f) => Math.log(f / EQ.fMin) / Math.log(EQ.fMax / EQ.fMin) * EQ.w;
const eqF = (x) => EQ.fMin * Math.pow(EQ.fMax / EQ.fMin, x / EQ.w);
const eqY = (db) => (1 - (db + EQ.dbMax) / (2 * EQ.dbMax)) * EQ.h;
const eqDB = (y) => (1 - y / EQ.h) * 2 * EQ.dbMax - EQ.dbMax;

function renderEQ() {
  const curves = page.state.curves;
  const handles = page.state.handles || [];
  $('eq-section').hidden = !curves;
  if (!curves) return;
  const s = $('eq');
  const path = (values) => values.map((db, i) => `${i ? 'L' : 'M'}${eqX(curves.frequencies[i]).toFixed(1)},${eqY(Math.max(-EQ.dbMax, Math.min(EQ.dbMax, db))).toFixed(1)}`).join('');
  // The same handles and curves as before: update them in place (a handle being dragged keeps
  // its pointer capture and focus). Otherwise draw everything anew.
  const shape = JSON.stringify(handles.map((h) => h.address));
  if (s.dataset.shape !== shape) {
    s.dataset.shape = shape;
    s.replaceChildren();
    for (const f of [20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]) {
      s.append(svg('line', { class: 'grid', x1: eqX(f), x2: eqX(f), y1: 0, y2: EQ.h }));
      const t = svg('text', { class: 'label', x: eqX(f) + 3, y: EQ.h - 4 }); t.textContent = f >= 1000 ? (f / 1000) + 'k' : f; s.append(t);
    }
    for (const db of [-18, -12, -6, 0, 6, 12, 18]) {
      s.append(svg('line', { class: 'grid', x1: 0, x2: EQ.w, y1: eqY(db), y2: eqY(db) }));
      const t = svg('text', { class: 'label', x: 3, y: eqY(db) - 3 }); t.textContent = (db > 0 ? '+' : '') + db; s.append(t);
    }
    s.append(svg('g', { class: 'curves' }));
    s.append(svg('path', { class: 'curve-total' }));
    for (const h of handles) {
      const c = svg('circle', { class: 'handle', r: 9, tabindex: 0, role: 'slider', 'aria-label': h.label, 'aria-valuemin': -20, 'aria-valuemax': 20, 'data-handle': h.address });
      c.append(svg('title'));
      attachHandle(c, h.address);
      s.append(c);
    }
  }
  // Filter curves come and go with the document (a flat band has none): under the handles.
  const group = s.querySelector('g.curves');
  for (const p of [...group.children]) if (!(p.dataset.node in (curves.nodes || {}))) p.remove();
  for (const [name, values] of Object.entries(curves.nodes || {})) {
    let p = group.querySelector(`path[data-node="${CSS.escape(name)}"]`);
    if (!p) { p = svg('path', { class: 'curve-node', 'data-node': name }); group.append(p); }
    p.setAttribute('d', path(values));
  }
  s.querySelector('path.curve-total').setAttribute('d', path(curves.total));
  for (const h of handles) {
    const c = s.querySelector(`circle[data-handle="${CSS.escape(h.address)}"]`);
    c.handle = h;
    if (page.dragging && page.dragging.key === h.address) continue;  // the pointer leads
    placeHandle(c, h.frequency, h.gain, h.q);
  }
}

function placeHandle(c, f, g, q) {
  c.setAttribute('cx', eqX(f)); c.setAttribute('cy', eqY(g));
  c.dataset.frequency = f; c.dataset.gain = g; if (q !== undefined) c.dataset.q = q;
  c.setAttribute('aria-valuenow', g);
  const text = `${fmt(f, 0)} Hz, ${g > 0 ? '+' : ''}${fmt(g)} dB` + (q !== undefined ? `, Q ${fmt(q, 2)}` : '');
  c.setAttribute('aria-valuetext', text);
  c.querySelector('title').textContent = `${c.handle.label}: ${text}`;
}

function sendBand(key, values) {
  sendSoon(key, () => {
    if (values.frequency !== undefined) command(`set ${key}.frequency ${values.frequency}`);
    if (values.gain !== undefined) command(`set ${key}.gain ${values.gain}`);
    if (values.q !== undefined) command(`set ${key}.q ${values.q}`);
  });
}
const roundF = (f) => Math.round(Math.min(20000, Math.max(20, f)) * 10) / 10;
const roundG = (g) => Math.round(Math.min(20, Math.max(-20, g)) * 10) / 10;
const roundQ = (q) => Math.round(Math.min(20, Math.max(0.1, q)) * 100) / 100;

/// Pointer, wheel and keyboard on a band's handle; `c.handle` is its latest state.
function attachHandle(c, key) {
  const svgPoint = (event) => {
    const r = $('eq').getBoundingClientRect();
    return { x: (event.clientX - r.left) / r.width * EQ.w, y: (event.clientY - r.top) / r.height * EQ.h };
  };
  c.addEventListener('pointerdown', (event) => {
    event.preventDefault();
    c.setPointerCapture(event.pointerId);
    c.focus();
    const h = c.handle;
    page.selected = key;
    page.dragging = { key, frequency: h.frequency, gain: h.gain, q: h.q, pointers: new Map([[event.pointerId, { x: event.clientX, y: event.clientY }]]) };
    c.classList.add('dragging');
  });
  c.addEventListener('pointermove', (event) => {
    const d = page.dragging;
    if (!d || d.key !== key || page.pinch) return;
    const p = svgPoint(event);
    d.frequency = roundF(eqF(p.x)); d.gain = roundG(eqDB(p.y));
    placeHandle(c, d.frequency, d.gain, d.q);
    sendBand(key, { frequency: d.frequency, gain: d.gain });
  });
  const end = (event) => {
    const d = page.dragging;
    if (!d || d.key !== key) return;
    d.pointers.delete(event.pointerId);
    if (d.pointers.size === 0) { page.dragging = null; c.classList.remove('dragging'); }
  };
  c.addEventListener('pointerup', end);
  c.addEventListener('pointercancel', end);
  c.addEventListener('wheel', (event) => {
    event.preventDefault();
    const h = c.handle;
    page.selected = key;
    if (h.q === undefined) return;
    h.q = roundQ(h.q * (event.deltaY < 0 ? 1.1 : 1 / 1.1));
    sendBand(key, { q: h.q });
  }, { passive: false });
  c.addEventListener('dblclick', () => sendBand(key, { gain: 0 }));
  c.addEventListener('focus', () => { page.selected = key; });
  c.addEventListener('keydown', (event) => {
    const h = c.handle, semitone = Math.pow(2, 1 / 12);
    const v = {};
    switch (event.key) {
      case 'ArrowLeft': v.frequency = roundF(h.frequency / semitone); break;
      case 'ArrowRight': v.frequency = roundF(h.frequency * semitone); break;
      case 'ArrowUp': v.gain = roundG(h.gain + 0.5); break;
      case 'ArrowDown': v.gain = roundG(h.gain - 0.5); break;
      case 'PageUp': if (h.q !== undefined) v.q = roundQ(h.q * 1.1); break;
      case 'PageDown': if (h.q !== undefined) v.q = roundQ(h.q / 1.1); break;
      case '0': v.gain = 0; break;
      default: return;
    }
    event.preventDefault();
    Object.assign(h, v);  // the next key builds on this one before the state comes back
    sendBand(key, v);
  });
}

/// Two fingers anywhere on the curve: their spread scales the Q of the band last touched or
/// focused (spreading them widens the band: a lower Q).
function attachPinch(s) {
  const fingers = new Map();
  const spread = () => { const [a, b] = [...fingers.values()]; return Math.hypot(a.x - b.x, a.y - b.y); };
  s.addEventListener('pointerdown', (event) => {
    fingers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (fingers.size === 2) {
      const c = s.querySelector(`circle[data-handle="${CSS.escape(page.selected || '')}"]`);
      page.pinch = c && c.handle.q !== undefined ? { key: page.selected, handle: c.handle, start: spread(), q: c.handle.q } : null;
    }
  });
  s.addEventListener('pointermove', (event) => {
    if (!fingers.has(event.pointerId)) return;
    fingers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    const p = page.pinch;
    if (!p || fingers.size < 2) return;
    event.preventDefault();
    const q = roundQ(p.q * p.start / Math.max(1, spread()));
    p.handle.q = q;
    sendBand(p.key, { q });
  });
  const lift = (event) => { fingers.delete(event.pointerId); if (fingers.size < 2) page.pinch = null; };
  s.addEventListener('pointerup', lift);
  s.addEventListener('pointercancel', lift);
}
attachPinch($('eq'));

// ---- channels, players, record, presets ------------------------------------------------
function renderMixer() {
  const doc = page.state.document;
  const box = $('mixer');
  $('mixer-section').hidden = !doc.graph;
  if (!doc.graph) return;
  box.replaceChildren();
  const strip = (id, o, isMaster) => {
    const row = el('div', { class: 'strip row', 'data-strip': id }, el('span', { class: 'title', text: id }));
    row.append(slider(`${id} volume`, o.volume ?? 1, 0, 1, 0.01, '', (v) => command(`set ${id}.volume ${v}`)));
    row.append(slider(`${id} pan`, o.pan ?? 0, -1, 1, 0.01, '', (v) => command(`set ${id}.pan ${v}`)));
    if (!isMaster) {
      row.append(toggle(`${id} mute`, !!o.mute, (on) => command(`set ${id}.mute ${on ? 1 : 0}`)));
      if (o.solo !== undefined || !isMaster) row.append(toggle(`${id} solo`, !!o.solo, (on) => command(`set ${id}.solo ${on ? 1 : 0}`)));
    }
    box.append(row);
  };
  for (const c of doc.graph.channels || []) strip(c.id, c.player && c.volume === undefined ? { ...c, volume: c.player.volume, pan: c.player.pan } : c, false);
  for (const g of doc.graph.groups || []) strip(g.id, g, false);
  strip(masterID(doc), doc.graph.master || {}, true);
}

function slider(label, value, min, max, step, unit, onChange, log = false) {
  const toSlider = (v) => log ? Math.log(v / min) / Math.log(max / min) * 1000 : v;
  const fromSlider = (s) => log ? min * Math.pow(max / min, s / 1000) : Number(s);
  const range = el('input', { type: 'range', min: log ? 0 : min, max: log ? 1000 : max, step: log ? 1 : step, value: toSlider(value), 'aria-label': label });
  const number = el('input', { type: 'number', min, max, step: log ? 'any' : step, value, 'aria-label': label + (unit ? ` (${unit})` : '') });
  range.addEventListener('input', () => {
    const v = Number(fromSlider(range.value).toPrecision(6));
    number.value = v;
    sendSoon(label, () => onChange(v));
  });
  number.addEventListener('change', () => { const v = Number(number.value); if (isFinite(v)) { range.value = toSlider(v); onChange(v); } });
  return el('span', { class: 'param-inline' }, el('label', { text: label.split(' ').slice(-1)[0] }), range, number, unit ? el('span', { class: 'unit', text: unit }) : null);
}

function toggle(label, on, onChange) {
  const box = el('input', { type: 'checkbox', 'aria-label': label });
  box.checked = on;
  box.addEventListener('change', () => onChange(box.checked));
  return el('label', {}, box, label.split(' ').slice(-1)[0]);
}

function renderPlayers() {
  const players = page.state.players || {};
  const ids = Object.keys(players);
  $('players-section').hidden = ids.length === 0;
  const box = $('players');
  box.replaceChildren();
  for (const id of ids) {
    const p = players[id];
    const seek = el('input', { type: 'range', class: 'seek', min: 0, max: p.duration, step: 0.01, value: p.currentTime, 'aria-label': `${id} position (seconds)` });
    seek.addEventListener('change', () => command(`seek ${id} ${Number(seek.value).toFixed(2)}`));
    seek.addEventListener('input', () => { seek.dataset.moving = '1'; });
    box.append(el('div', { class: 'strip', 'data-player': id },
      el('div', { class: 'row' }, el('span', { class: 'title', text: id }),
        el('button', { type: 'button', text: 'Play', onclick: () => command(`play ${id}`), 'aria-label': `play ${id}` }),
        el('button', { type: 'button', text: 'Pause', onclick: () => command(`pause ${id}`), 'aria-label': `pause ${id}` }),
        el('button', { type: 'button', text: 'Stop', onclick: () => command(`stop ${id}`), 'aria-label': `stop ${id}` }),
        el('span', { class: 'time', 'data-time': id, text: `${fmt(p.currentTime, 2)} / ${fmt(p.duration, 2)} s` })),
      seek));
  }
}

function updatePlayerTimes(players) {
  for (const [id, p] of Object.entries(players)) {
    const t = document.querySelector(`[data-time="${CSS.escape(id)}"]`);
    if (t) t.textContent = `${fmt(p.currentTime, 2)} / ${fmt(p.duration, 2)} s${p.playing ? '' : ' (paused)'}`;
    const seek = document.querySelector(`[data-player="${CSS.escape(id)}"] .seek`);
    if (seek && document.activeElement !== seek && !seek.dataset.moving) seek.value = p.currentTime;
    if (seek && document.activeElement !== seek) delete seek.dataset.moving;
  }
}

function renderRecordSources() {
  const doc = page.state.document;
  const select = $('take-source');
  const want = ['master', 'inputs', ...((doc.graph || {}).channels || []).map((c) => c.id), ...((doc.graph || {}).groups || []).map((g) => g.id)];
  if ([...select.options].map((o) => o.value).join() === want.join()) return;
  const keep = select.value;
  select.replaceChildren(...want.map((v) => el('option', { value: v, text: v })));
  if (want.includes(keep)) select.value = keep;
}

function renderTakes(takes) {
  const box = $('takes');
  box.replaceChildren(...takes.map((t) => el('div', { class: 'strip', 'data-take': t.path },
    `${t.path} (${t.source}): ${t.state}, ${fmt(t.seconds, 1)} s, ring ${fmt(t.ringFill * 100, 0)} %` + (t.error ? `, ${t.error}` : ''))));
}

function renderPresets() {
  const select = $('preset-list');
  const names = page.state.presets || [];
  if ([...select.options].map((o) => o.value).join() === names.join()) return;
  select.replaceChildren(...names.map((n) => el('option', { value: n, text: n })));
}

// ---- node parameters, generated from the preset schema ---------------------------------
function resolve(schema, s) {
  while (s && s.$ref) s = s.$ref.split('/').slice(1).reduce((o, k) => o[k], schema);
  return s || {};
}

/// The schema definition of a node type (its `type` const or enum). The union of every kind
/// (`$defs.node`, whose `oneOf` lists them and whose enum holds every type) is not one: the
/// schema arrives with its keys sorted, so it would come before `panNode`, `passNode` … and
/// those nodes would get no controls.
function definition(type) {
  const defs = (page.schema || {}).$defs || {};
  for (const d of Object.values(defs)) {
    if (d.oneOf) continue;
    const t = d.properties && d.properties.type;
    if (t && (t.const === type || (t.enum || []).includes(type))) return d;
  }
  return null;
}

const units = ['dB', 'dBTP', 'dBFS', 'LUFS', 'Hz', 'ms', 's', '%', 'semitones', 'cents'];
function unitOf(s) {
  const word = (s.description || '').split(/[ ,;:(]/)[0];
  return units.includes(word) ? word : '';
}

function renderNodes() {
  if (!page.schema) return;
  const box = $('nodes');
  // Keep focus on the control being used: rebuild only when the document's shape changed.
  const shape = JSON.stringify(nodesOf(page.state.document).map((n) => [n.address, n.node.type, (n.node.bands || []).length]));
  if (box.dataset.shape === shape) { refreshNodeValues(); return; }
  box.dataset.shape = shape;
  box.replaceChildren();
  let bus = null, group = null;
  for (const n of nodesOf(page.state.document)) {
    if (n.bus !== bus) { bus = n.bus; group = el('div', { class: 'nodes-group' }, el('h3', { text: bus === 'chain' ? 'Chain' : bus })); box.append(group); }
    group.append(nodeControls(n));
  }
}

function nodeControls(n) {
  const type = n.node.type;
  const def = definition(type);
  const fs = el('fieldset', { 'data-node': n.address || '' }, el('legend', {}, (n.node.id || type) + ' ', el('span', { class: 'type', text: `(${type})` })));
  if (!n.address) { fs.append(el('p', { class: 'hint', text: 'Give this node an "id" in the preset to change it live.' })); return fs; }
  fs.append(el('div', { class: 'row' }, toggle(`${n.address} bypass`, !!n.node.bypass, (on) => command(`bypass ${n.address} ${on ? 'on' : 'off'}`))));
  if (!def) return fs;
  const skip = new Set(['type', 'id', 'bypass']);
  for (const [key, raw] of Object.entries(def.properties || {})) {
    if (skip.has(key)) continue;
    const s = resolve(page.schema, raw);
    if (s.type === 'array' && key === 'bands') {
      const items = resolve(page.schema, s.items);
      const bands = el('div', { class: 'bands' });
      (n.node.bands || []).forEach((band, i) => {
        const bfs = el('fieldset', {}, el('legend', { text: `band ${i + 1}` }));
        for (const [bk, braw] of Object.entries(items.properties || {})) bfs.append(param(`${n.address}.bands[${i}].${bk}`, bk, resolve(page.schema, braw), band[bk]));
        bands.append(bfs);
      });
      fs.append(bands);
      continue;
    }
    const control = param(`${n.address}.${key}`, key, s, n.node[key]);
    if (control) fs.append(control);
  }
  return fs;
}

/// One parameter's control: a slider and a number for numbers (log for frequencies and Q),
/// a menu for choices, a checkbox for switches. Objects and lists other than bands are shown
/// as they are.
function param(address, key, s, value) {
  let number = s;
  if (s.oneOf) number = resolve(page.schema, s.oneOf.find((o) => resolve(page.schema, o).type === 'number') || s.oneOf[0]);
  const label = el('label', { text: key, for: 'p-' + address });
  if (s.enum) {
    const select = el('select', { id: 'p-' + address, 'data-address': address });
    for (const v of s.enum) select.append(el('option', { value: v, text: v }));
    select.value = value ?? s.default ?? s.enum[0];
    select.addEventListener('change', () => setValue(address, select.value));
    return el('div', { class: 'param' }, label, select);
  }
  if (s.type === 'boolean') {
    const box = el('input', { type: 'checkbox', id: 'p-' + address, 'data-address': address });
    box.checked = value ?? s.default ?? false;
    box.addEventListener('change', () => command(`set ${address} ${box.checked ? 1 : 0}`));
    return el('div', { class: 'param' }, label, box);
  }
  if (number.type === 'number' || number.type === 'integer') {
    const min = number.minimum ?? (number.exclusiveMinimum ?? -100), max = number.maximum ?? 100;
    const log = (key === 'frequency' || key === 'q' || /Frequency$/.test(key)) && min > 0;
    const step = number.type === 'integer' ? 1 : (max - min) / 1000 < 0.01 ? 0.001 : 0.01;
    const current = typeof value === 'number' ? value : (number.default ?? s.default ?? min);
    const unit = unitOf(s) || unitOf(number);
    const toSlider = (v) => log ? Math.log(v / min) / Math.log(max / min) * 1000 : v;
    const fromSlider = (x) => log ? min * Math.pow(max / min, x / 1000) : Number(x);
    const range = el('input', { type: 'range', min: log ? 0 : min, max: log ? 1000 : max, step: log ? 1 : step, value: toSlider(current), 'aria-label': `${address}${unit ? ' (' + unit + ')' : ''}`, 'data-address': address });
    const box = el('input', { type: 'number', id: 'p-' + address, min, max, step: 'any', value: current, 'data-address': address });
    range.addEventListener('input', () => {
      const v = Number(fromSlider(range.value).toPrecision(5));
      box.value = v;
      sendSoon(address, () => command(`set ${address} ${v}`));
    });
    box.addEventListener('change', () => { const v = Number(box.value); if (isFinite(v)) { range.value = toSlider(v); command(`set ${address} ${v}`); } });
    range.dataset.log = log ? `${min},${max}` : '';
    return el('div', { class: 'param' }, label, range, box, el('span', { class: 'unit', text: unit }));
  }
  if (value === undefined) return null;
  return el('div', { class: 'param' }, label, el('code', { text: JSON.stringify(value) }));
}

/// Another page, stdin, OSC or MIDI changed values: move the controls not being used.
function refreshNodeValues() {
  const doc = page.state.document;
  const lookup = new Map();
  for (const n of nodesOf(doc)) {
    if (!n.address) continue;
    lookup.set(`${n.address}.bypass`, !!n.node.bypass);
    for (const [k, v] of Object.entries(n.node)) lookup.set(`${n.address}.${k}`, v);
    (n.node.bands || []).forEach((b, i) => { for (const [k, v] of Object.entries(b)) lookup.set(`${n.address}.bands[${i}].${k}`, v); });
  }
  for (const input of document.querySelectorAll('#nodes [data-address]')) {
    if (input === document.activeElement) continue;
    const v = lookup.get(input.dataset.address);
    if (v === undefined) continue;
    if (input.type === 'checkbox') input.checked = !!v;
    else if (input.type === 'range' && input.dataset.log) { const [min, max] = input.dataset.log.split(',').map(Number); input.value = Math.log(v / min) / Math.log(max / min) * 1000; }
    else input.value = v;
  }
  for (const box of document.querySelectorAll('#nodes fieldset[data-node]')) {
    const bypass = box.querySelector(':scope > .row input[type=checkbox]');
    const v = lookup.get(`${box.dataset.node}.bypass`);
    if (bypass && v !== undefined && bypass !== document.activeElement) bypass.checked = v;
  }
}

// ---- wiring ----------------------------------------------------------------------------
$('take-start').addEventListener('click', () => {
  const file = $('take-file').value.trim();
  if (file) command(`record start ${file} ${$('take-source').value}`);
});
$('take-stop').addEventListener('click', () => command('record stop'));
$('preset-load').addEventListener('click', () => { const v = $('preset-list').value; if (v) command(`load ${v}`); });
$('preset-save').addEventListener('click', () => { const v = $('preset-save-name').value.trim(); command(v ? `save ${v}` : 'save'); });
connect();
