// txoutbox dashboard: plain JavaScript, no library, no network access but this server's own API.
'use strict';
(function () {
  const POLL_MS = 1000;
  const TOKEN_KEY = 'txoutbox.token';
  const $ = (id) => document.getElementById(id);
  let token = null;
  let source = null;
  let sources = [];
  let lastSourcesAt = 0;
  let polling = false;
  let status = 'connecting';
  let lastStats = null;

  // The token arrives in the URL fragment (#token=...), which browsers never send to a server; it moves
  // to this tab's session storage and leaves the address bar, history and bookmarks at once.
  function readToken() {
    const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (m) {
      token = decodeURIComponent(m[1]);
      sessionStorage.setItem(TOKEN_KEY, token);
      history.replaceState(null, '', location.pathname + location.search);
    } else {
      token = sessionStorage.getItem(TOKEN_KEY);
    }
  }

  async function api(method, path, body) {
    const headers = { Authorization: 'Bearer ' + token, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch('/api' + path, {
      method, headers, cache: 'no-store', credentials: 'omit',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const err = new Error((data && data.error) || ('HTTP ' + res.status));
      err.status = res.status;
      throw err;
    }
    return data;
  }

  function showLogin(message) {
    token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    $('main').hidden = true;
    $('login').hidden = false;
    $('logout').hidden = true;
    $('login-error').textContent = message || '';
    setStatus('locked');
  }

  function showMain() {
    $('login').hidden = true;
    $('main').hidden = false;
    $('logout').hidden = false;
  }

  function setStatus(s) {
    status = s;
    const pill = $('status');
    pill.textContent = s;
    pill.className = 'pill ' + s;
    const toggle = $('toggle');
    toggle.disabled = !(s === 'running' || s === 'paused');
    toggle.textContent = s === 'paused' ? 'Resume' : 'Pause';
  }

  function toast(text) {
    const t = $('toast');
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, 2500);
  }

  const fmt = new Intl.NumberFormat('en');
  function age(ms) {
    if (!ms) return '0 s';
    const s = ms / 1000;
    if (s < 60) return s.toFixed(s < 10 ? 1 : 0) + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + Math.floor(s % 60) + ' s';
    if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
    return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  }

  function cell(tr, text, cls) {
    const td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }

  async function loadSources() {
    const data = await api('GET', '/sources');
    sources = data.sources;
    lastSourcesAt = Date.now();
    const select = $('source');
    const names = sources.map((s) => s.name);
    if (!source || !names.includes(source)) source = names[0] || null;
    if (select.options.length !== names.length) {
      select.textContent = '';
      for (const n of names) {
        const o = document.createElement('option');
        o.value = n; o.textContent = n;
        select.appendChild(o);
      }
    }
    select.value = source;
    $('source-pick').hidden = names.length < 2;
    renderSourceInfo();
  }

  function renderSourceInfo() {
    const s = sources.find((x) => x.name === source);
    const dl = $('source-info');
    dl.textContent = '';
    if (!s) return;
    const rows = [
      ['name', s.name], ['table', s.table], ['database', s.jdbcUrl + (s.user ? ' (user ' + s.user + ')' : '')],
      ['dialect', s.dialect], ['ordered', s.ordered || 'no'], ['relays', s.relays + ' × batch ' + s.batchSize],
    ];
    for (const r of s.routes) rows.push(['route', r]);
    for (const [k, v] of rows) {
      const dt = document.createElement('dt'); dt.textContent = k;
      const dd = document.createElement('dd'); dd.textContent = v;
      dl.appendChild(dt); dl.appendChild(dd);
    }
  }

  function renderStats(st) {
    lastStats = st;
    setStatus(st.status);
    $('pending').textContent = fmt.format(st.pending);
    $('retrying').textContent = fmt.format(st.retrying);
    $('inflight').textContent = fmt.format(st.inFlight);
    $('oldest').textContent = age(st.oldestPendingAgeMillis);
    $('published-total').textContent = fmt.format(st.relayed.published);
    $('retried-total').textContent = fmt.format(st.relayed.retried);
    $('dead-count').textContent = fmt.format(st.dead);
    $('blocked').textContent = fmt.format(st.blockedAggregates);
    const recent = st.throughput.slice(-10);
    const rate = recent.length ? recent.reduce((a, p) => a + p.published, 0) / recent.length : 0;
    $('rate').textContent = rate.toFixed(1);

    const types = new Set([...Object.keys(st.byType), ...Object.keys(st.relayed.byType)]);
    const body = $('types').tBodies[0];
    body.textContent = '';
    for (const t of [...types].sort()) {
      const table = st.byType[t] || {};
      const relayed = st.relayed.byType[t] || {};
      const tr = document.createElement('tr');
      cell(tr, t);
      cell(tr, fmt.format(relayed.published || 0), 'num');
      cell(tr, fmt.format(table.pending || 0), 'num');
      cell(tr, fmt.format(relayed.retried || 0), 'num');
      cell(tr, fmt.format(table.dead || 0), 'num');
      body.appendChild(tr);
    }
    renderRoutes(st.routes || []);
    drawChart(st.throughput);
  }

  function ms(v) {
    return v < 10 ? v.toFixed(1) + ' ms' : v < 10000 ? Math.round(v) + ' ms' : (v / 1000).toFixed(1) + ' s';
  }

  // One row per route: which broker is slow or failing, at a glance.
  function renderRoutes(routes) {
    const body = $('routes').tBodies[0];
    body.textContent = '';
    for (const r of routes) {
      const tr = document.createElement('tr');
      tr.dataset.route = r.name;
      tr.className = r.failing ? 'failing' : '';
      const first = cell(tr, '');
      const name = document.createElement('div'); name.textContent = r.name;
      const target = document.createElement('small'); target.textContent = r.target;
      first.appendChild(name); first.appendChild(target);
      cell(tr, r.types.join(', '));
      cell(tr, r.failing ? 'failing' : 'ok', 'state');
      cell(tr, fmt.format(r.published), 'num');
      cell(tr, fmt.format(r.retried), 'num');
      cell(tr, fmt.format(r.dead), 'num');
      cell(tr, fmt.format(r.failures), 'num');
      cell(tr, r.recent.publishedPerSecond.toFixed(1), 'num');
      cell(tr, ms(r.recent.meanLatencyMillis) + ' / ' + ms(r.recent.maxLatencyMillis), 'num');
      cell(tr, r.lastError || '', 'reason');
      body.appendChild(tr);
    }
  }

  function renderDead(page) {
    const body = $('dead').tBodies[0];
    body.textContent = '';
    for (const e of page.events) {
      const tr = document.createElement('tr');
      tr.dataset.id = e.id;
      const first = cell(tr, '');
      const type = document.createElement('div'); type.textContent = e.eventType;
      const id = document.createElement('code'); id.textContent = e.id; id.title = 'created ' + e.createdAt;
      first.appendChild(type); first.appendChild(id);
      cell(tr, e.aggregateType + '/' + e.aggregateId + (e.heldBack ? ' (' + e.heldBack + ' held back)' : ''));
      cell(tr, String(e.attempts), 'num');
      cell(tr, e.lastError || '', 'reason');
      const action = cell(tr, '');
      const b = document.createElement('button');
      b.type = 'button'; b.className = 'revive'; b.textContent = 'Revive';
      b.addEventListener('click', () => revive({ ids: [e.id] }, b));
      action.appendChild(b);
      body.appendChild(tr);
    }
    $('dead-empty').hidden = page.events.length > 0;
    $('dead').hidden = page.events.length === 0;
  }

  async function revive(selector, button) {
    if (button) button.disabled = true;
    try {
      const r = await api('POST', '/sources/' + encodeURIComponent(source) + '/revive', selector);
      toast('Revived ' + r.revived + ' event' + (r.revived === 1 ? '' : 's') + ': the relay publishes them now');
      await poll();
    } catch (e) {
      toast('Revive failed: ' + e.message);
      if (button) button.disabled = false;
    }
  }

  // The chart: drawn on a canvas by hand, scaled for the screen's pixel density.
  function drawChart(points) {
    const canvas = $('chart');
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth, h = canvas.clientHeight || 220;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    }
    const g = canvas.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    const left = 44, right = 12, top = 10, bottom = 24;
    const pw = w - left - right, ph = h - top - bottom;
    const N = 120;
    const series = points.slice(-N);
    let max = 1;
    for (const p of series) max = Math.max(max, p.published, p.retried, p.dead);
    const step = niceStep(max / 4);
    max = Math.ceil(max / step) * step;
    g.font = '11px sans-serif';
    g.fillStyle = '#656d76';
    g.strokeStyle = '#eaeef2';
    g.lineWidth = 1;
    g.textAlign = 'right'; g.textBaseline = 'middle';
    for (let v = 0; v <= max + 1e-9; v += step) {
      const y = top + ph - (v / max) * ph;
      g.beginPath(); g.moveTo(left, Math.round(y) + 0.5); g.lineTo(left + pw, Math.round(y) + 0.5); g.stroke();
      g.fillText(String(Math.round(v * 10) / 10), left - 6, y);
    }
    g.textAlign = 'center'; g.textBaseline = 'top';
    for (let s = 0; s <= N; s += 30) {
      const x = left + pw - (s / N) * pw;
      g.fillText(s === 0 ? 'now' : '-' + s + ' s', x, top + ph + 6);
    }
    const x = (i) => left + pw - ((series.length - 1 - i) / N) * pw;
    const y = (v) => top + ph - (v / max) * ph;
    const line = (key, color, width) => {
      if (series.length < 2) return;
      g.strokeStyle = color; g.lineWidth = width; g.lineJoin = 'round';
      g.beginPath();
      series.forEach((p, i) => (i ? g.lineTo(x(i), y(p[key])) : g.moveTo(x(i), y(p[key]))));
      g.stroke();
    };
    if (series.length >= 2) {
      g.fillStyle = 'rgba(26,127,55,0.10)';
      g.beginPath(); g.moveTo(x(0), y(0));
      series.forEach((p, i) => g.lineTo(x(i), y(p.published)));
      g.lineTo(x(series.length - 1), y(0)); g.closePath(); g.fill();
    }
    line('published', '#1a7f37', 2);
    line('retried', '#bf8700', 1.5);
    line('dead', '#cf222e', 1.5);
  }

  function niceStep(raw) {
    const pow = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 0.25))));
    for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
    return 10 * pow;
  }

  async function poll() {
    if (!token) return;
    try {
      if (!source || Date.now() - lastSourcesAt > 10000) await loadSources();
      if (!source) return;
      const path = '/sources/' + encodeURIComponent(source);
      const type = $('dead-type').value.trim();
      const [st, dead] = await Promise.all([
        api('GET', path + '/stats'),
        api('GET', path + '/dead?limit=25' + (type ? '&type=' + encodeURIComponent(type) : '')),
      ]);
      showMain();
      renderStats(st);
      renderDead(dead);
      $('updated').textContent = new Date().toLocaleTimeString();
    } catch (e) {
      if (e.status === 401) {
        showLogin('The server refused that token.');
      } else {
        setStatus('error');
        $('updated').textContent = 'failed: ' + e.message;
      }
    }
  }

  async function loop() {
    if (polling) return;
    polling = true;
    try { await poll(); } finally { polling = false; }
  }

  $('login-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    token = $('token-input').value.trim();
    $('token-input').value = '';
    sessionStorage.setItem(TOKEN_KEY, token);
    lastSourcesAt = 0;
    loop();
  });
  $('logout').addEventListener('click', () => showLogin(''));
  $('source').addEventListener('change', (ev) => { source = ev.target.value; renderSourceInfo(); loop(); });
  $('toggle').addEventListener('click', async () => {
    const action = status === 'paused' ? 'resume' : 'pause';
    try {
      const r = await api('POST', '/sources/' + encodeURIComponent(source) + '/' + action, {});
      setStatus(r.status);
      toast(action === 'pause' ? 'Paused: the relay claims nothing until you resume' : 'Resumed');
    } catch (e) { toast(action + ' failed: ' + e.message); }
  });
  $('revive-all').addEventListener('click', () => {
    const type = $('dead-type').value.trim();
    const what = type ? 'every dead ' + type + ' event' : 'every dead event';
    if (confirm('Revive ' + what + ' of source ' + source + '?')) revive(type ? { type } : { all: true });
  });
  // A new #token=... pasted into the address bar of an open dashboard replaces the stored one.
  window.addEventListener('hashchange', () => {
    if (/token=/.test(location.hash)) { readToken(); lastSourcesAt = 0; loop(); }
  });
  window.addEventListener('resize', () => { if (lastStats) drawChart(lastStats.throughput); });

  readToken();
  if (token) loop(); else showLogin('');
  setInterval(loop, POLL_MS);
})();
