// The Catalog app's model rules, ported from Workers/Catalog/Sources/CatalogApp (CatalogEngine.swift,
// CatalogBackend.swift, CatalogStrings.swift): the same state, intents, strings and network rules, with real time
// and real requests. A port, so it can drift from the Swift model: docs/CATALOG-WEB.md lists where it does.
'use strict';
window.CatalogModel = (() => {
  // --- strings: the tables of CatalogStrings.swift (strings.js), resolved like RunConditions' Localizer ---
  const tables = window.CatalogStrings;
  const locale = navigator.language || tables.base;
  const chainOf = (tag) => {
    const parts = tag.split('-');
    const chain = [];
    while (parts.length) { chain.push(parts.join('-')); parts.pop(); }
    if (!chain.includes(tables.base)) chain.push(tables.base);
    return chain.filter((t) => tables.tables[t]);
  };
  const chain = chainOf(locale);
  // Pseudolocalization at the source: each table string passes through FlowMatrix's hook when a run provides it.
  const source = (t) => (window.FlowMatrix && window.FlowMatrix.pseudolocalize) ? window.FlowMatrix.pseudolocalize(t) : t;
  const string = (key, args) => {
    let text = key;
    for (const tag of chain) if (key in tables.tables[tag]) { text = tables.tables[tag][key]; break; }
    text = source(text);
    return args ? text.replace(/\{(\w+)\}/g, (m, name) => (name in args ? args[name] : m)) : text;
  };
  const language = locale.split('-')[0];
  const rtl = ['ar', 'he', 'fa', 'ur'].includes(language);
  const numbers = new Intl.NumberFormat(locale);
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' });
  const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const format = {
    number: (n) => numbers.format(n),
    price: (minor) => money.format(minor / 100),
    date: (d) => dates.format(d),
    language: () => { try { return new Intl.DisplayNames([locale], { type: 'language' }).of(locale); } catch (e) { return locale; } },
  };

  // --- the app clock: real time, moved forward by `time.pass` (timers due meanwhile fire at once) ---
  let skipped = 0;
  const timers = [];
  const now = () => performance.now() / 1000 + skipped;
  const later = (seconds, fn) => {
    const t = { at: now() + seconds, fn, done: false };
    t.handle = setTimeout(() => fire(t), seconds * 1000);
    timers.push(t);
  };
  const fire = (t) => { if (!t.done) { t.done = true; clearTimeout(t.handle); t.fn(); } };
  const pass = (seconds) => {
    skipped += seconds;
    for (const t of timers.slice().sort((a, b) => a.at - b.at)) if (!t.done && t.at <= now() + 1e-6) fire(t);
  };

  // --- the backend port: static JSON the web registry's `request` fixtures replace ---
  const get = async (path) => {
    try {
      const r = await fetch(path, { cache: 'no-store' });
      if (!r.ok) return { refused: 'unavailable' };
      return { body: await r.json() };
    } catch (e) {
      return { failure: navigator.onLine === false ? 'notConnected' : 'connectionLost' };
    }
  };

  const state = {
    launched: false, stack: ['catalog'], products: [], load: 'idle', loadError: null, refreshing: false,
    search: '', filter: 'all', itemID: null, cart: [], signedInEmail: null, email: '', password: '',
    signingIn: false, signInError: null, checkout: { state: 'idle' }, alerts: [], banner: null, bannerGeneration: 0,
    notificationsOn: false, significantActions: 0, ratePrompted: false, toastGeneration: 0, showAddedToast: false,
    inFlight: 0,
  };
  const actionsBeforeRatePrompt = 3;
  const listeners = [];
  const changed = () => { for (const l of listeners) l(); };

  const current = () => state.stack[state.stack.length - 1] || 'catalog';
  const push = (screen) => { state.stack.push(screen); state.showAddedToast = false; };
  const pop = () => { if (state.stack.length > 1) state.stack.pop(); state.showAddedToast = false; };
  const filtered = () => {
    const fold = (s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    const query = fold(state.search.trim());
    return state.products.filter((p) => (state.filter === 'all' || p.category === state.filter)
      && (!query || fold(p.name).includes(query)));
  };
  const product = () => state.products.find((p) => p.id === state.itemID) || null;

  const launch = async () => {
    if (state.launched) return;
    state.launched = true;
    const [install, session] = await Promise.all([get('api/install.json'), get('api/session.json')]);
    if (session.body && session.body.email) state.signedInEmail = session.body.email;
    if (!install.body || install.body.firstLaunch !== false) state.alerts.push('permission');
    changed();
    loadProducts(false, 0);
  };

  // A refresh's answer is applied once `network.settle` says the network is done (or after refreshHoldSeconds of
  // real time), as the model's simulated network answers only when the scenario lets time run: the evidence the web
  // registry takes after each step waits for the page's requests, and must not end a state the next step asserts.
  const refreshHoldSeconds = 10;
  const networkHolds = [];
  const holdForNetwork = () => new Promise((resolve) => {
    const hold = { resolve };
    hold.handle = setTimeout(() => { networkHolds.splice(networkHolds.indexOf(hold), 1); resolve(); }, refreshHoldSeconds * 1000);
    networkHolds.push(hold);
  });
  const settleNetwork = () => { for (const hold of networkHolds.splice(0)) { clearTimeout(hold.handle); hold.resolve(); } };

  const loadProducts = async (refresh, attempt) => {
    if (refresh) state.refreshing = true; else state.load = 'loading';
    changed();
    state.inFlight++;
    const hold = refresh ? holdForNetwork() : null;
    const r = await get('api/products.json');
    if (hold) await hold;
    state.inFlight--;
    if (r.body) {
      state.products = r.body;
      state.load = 'loaded';
      state.refreshing = false;
    } else if (r.refused) {
      state.refreshing = false;
      if (!refresh) { state.load = 'failed'; state.loadError = 'catalog.error.failed'; }
    } else if (attempt === 0 && r.failure !== 'notConnected') {
      // One automatic retry for an idempotent GET after a lost connection.
      later(1, () => loadProducts(refresh, 1));
    } else if (refresh) {
      state.refreshing = false;
    } else {
      state.load = 'failed';
      state.loadError = r.failure === 'notConnected' ? 'catalog.error.offline' : 'catalog.error.failed';
    }
    changed();
  };

  const noteSignificantAction = () => {
    state.significantActions++;
    if (state.significantActions >= actionsBeforeRatePrompt && !state.ratePrompted) {
      state.ratePrompted = true;
      later(2, () => { state.alerts.push('rate'); changed(); });
    }
  };

  const addToCart = (p) => {
    const line = state.cart.find((l) => l.product.id === p.id);
    if (line) line.quantity++; else state.cart.push({ product: p, quantity: 1 });
    if (state.checkout.state === 'placed') state.checkout = { state: 'idle' };
    noteSignificantAction();
  };

  const signIn = async () => {
    state.signingIn = true;
    state.signInError = null;
    changed();
    const r = await get('api/account.json');
    state.signingIn = false;
    if (r.failure || r.refused) {
      state.signInError = 'signin.error.network';
    } else if (state.email.toLowerCase() !== r.body.email || state.password !== r.body.password) {
      state.signInError = 'signin.error.credentials';
    } else if (r.body.locked) {
      state.signInError = 'signin.error.locked';
    } else {
      state.signedInEmail = r.body.email;
      state.password = '';
      if (current() === 'signin') pop();
    }
    changed();
  };

  const checkout = async () => {
    state.checkout = { state: 'submitting' };
    changed();
    const r = await get('api/checkout.json');
    if (r.body && r.body.result === 'placed') {
      const arrival = new Date(Date.UTC(2026, 2, 2, 9) + (now() + 3 * 86400) * 1000);
      state.checkout = { state: 'placed', number: r.body.number, date: format.date(arrival) };
      state.cart = [];
      noteSignificantAction();
    } else {
      state.checkout = { state: 'failed', key: r.body ? 'cart.error.declined' : 'cart.error.network' };
    }
    changed();
  };

  const index = (id, prefix, suffix = '') => {
    if (!id.startsWith(prefix) || !id.endsWith(suffix)) return null;
    const n = id.slice(prefix.length, id.length - suffix.length);
    return /^\d+$/.test(n) ? Number(n) : null;
  };

  const tap = (id) => {
    const taps = {
      'catalog.settings-button': () => push('settings'),
      'catalog.cart-button': () => push('cart'),
      'catalog.search.clear': () => { state.search = ''; },
      'catalog.retry': () => loadProducts(false, 0),
      'item.back': pop, 'cart.back': pop, 'settings.back': pop, 'signin.cancel': pop,
      'item.add-to-cart': () => {
        const p = product();
        if (!p) return;
        addToCart(p);
        state.showAddedToast = true;
        const generation = ++state.toastGeneration;
        later(2, () => { if (state.toastGeneration === generation) { state.showAddedToast = false; changed(); } });
      },
      'cart.continue-shopping': () => {
        state.stack = ['catalog'];
        if (state.checkout.state === 'placed') state.checkout = { state: 'idle' };
      },
      'cart.checkout': () => { if (state.signedInEmail === null) push('signin'); else checkout(); },
      'signin.submit': () => { signIn(); },
      'settings.sign-in': () => push('signin'),
      'settings.sign-out': () => { state.signedInEmail = null; },
      'settings.notifications': () => { state.notificationsOn = !state.notificationsOn; },
      'alert.permission.allow': () => { state.alerts = state.alerts.filter((a) => a !== 'permission'); state.notificationsOn = true; },
      'alert.permission.dont-allow': () => { state.alerts = state.alerts.filter((a) => a !== 'permission'); state.notificationsOn = false; },
      'alert.rate.rate': () => { state.alerts = state.alerts.filter((a) => a !== 'rate'); },
      'alert.rate.not-now': () => { state.alerts = state.alerts.filter((a) => a !== 'rate'); },
      'banner.push': () => {
        if (!state.banner) return;
        state.stack = state.banner.opens === 'catalog' ? ['catalog'] : ['catalog', state.banner.opens];
        state.banner = null;
      },
    };
    let i;
    if (taps[id]) taps[id]();
    else if (id.startsWith('catalog.filter.')) state.filter = id.slice('catalog.filter.'.length);
    else if ((i = index(id, 'catalog.item.', '.add')) !== null) { if (filtered()[i]) addToCart(filtered()[i]); }
    else if ((i = index(id, 'catalog.item.')) !== null) { if (filtered()[i]) { state.itemID = filtered()[i].id; push('item'); } }
    else if ((i = index(id, 'cart.line.', '.increment')) !== null) { if (state.cart[i]) state.cart[i].quantity++; }
    else if ((i = index(id, 'cart.line.', '.decrement')) !== null) {
      // Seeded drift: the port keeps a line at quantity 1 — the model's rule "a line whose quantity reaches 0 is
      // removed" was left out (docs/CATALOG-WEB.md).
      if (state.cart[i] && state.cart[i].quantity > 1) state.cart[i].quantity--;
    } else return false;
    changed();
    return true;
  };

  const type = (id, text) => {
    if (id === 'catalog.search') state.search = text;
    else if (id === 'signin.email') state.email = text;
    else if (id === 'signin.password') state.password = text;
    else return;
    changed();
  };

  const swipe = (id, direction) => {
    let i;
    if (id === 'banner.push') state.banner = null;
    else if ((i = index(id, 'cart.line.')) !== null && (direction === 'left' || direction === 'right')) state.cart.splice(i, 1);
    else return;
    changed();
  };

  const open = (screen, argument) => {
    if (screen === 'item') { state.itemID = argument || null; state.stack = ['catalog', 'item']; }
    else state.stack = screen === 'catalog' ? ['catalog'] : ['catalog', screen];
    state.showAddedToast = false;
    changed();
    launch();
  };

  // Ambient events, as the web registry dispatches them (`CustomEvent`s on window).
  addEventListener('timer.refresh', () => { if (state.launched) loadProducts(state.load === 'loaded', 0); });
  addEventListener('time.pass', (e) => pass(Number(e.detail) || 0));
  addEventListener('push.notification', (e) => {
    const kind = e.detail === 'price-drop' ? 'price-drop' : 'order-shipped';
    state.banner = { key: kind === 'price-drop' ? 'push.priceDrop' : 'push.orderShipped', opens: kind === 'price-drop' ? 'catalog' : 'cart' };
    const generation = ++state.bannerGeneration;
    later(5, () => { if (state.bannerGeneration === generation && state.banner) { state.banner = null; changed(); } });
    changed();
  });
  addEventListener('network.settle', settleNetwork);

  return {
    state, string, format, rtl, locale, current, filtered, product, open, tap, type, swipe,
    onChange: (l) => listeners.push(l),
  };
})();
