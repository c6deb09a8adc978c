'use strict';
// Lamplight: a small shop page. It has real mistakes that only some configurations show (see ../README.md).
const RTL = ['ar', 'he', 'fa', 'ur'];
const pickLanguage = () => {
  for (const tag of navigator.languages || [navigator.language]) {
    if (STRINGS[tag]) return tag;
    const base = tag.split('-')[0];
    if (STRINGS[base]) return base;
  }
  return 'en';
};
const lang = pickLanguage();
const table = STRINGS[lang];
// Each translated string passes through FlowMatrix.pseudolocalize when a FlowMatrix run pseudolocalizes (the hook
// exists only then; docs/WEB.md): text the app builds in code around it then shows up untransformed.
const pseudo = (window.FlowMatrix && window.FlowMatrix.pseudolocalize) || ((text) => text);
const t = (key, values) => pseudo(table[key] || STRINGS.en[key] || key).replace(/\{(\w+)\}/g, (_, k) => (values || {})[k] ?? '');
document.documentElement.lang = lang;
document.documentElement.dir = RTL.includes(lang) ? 'rtl' : 'ltr';
const money = new Intl.NumberFormat(navigator.language, { style: 'currency', currency: 'EUR' });

const $ = (id) => document.querySelector('[data-testid="' + id + '"]');
const el = (tag, attrs, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'testid') node.dataset.testid = v; else if (k === 'class') node.className = v; else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
};

let products = [];
const cart = new Map();  // id → quantity

const showOrientation = () => {
  $('app.orientation').textContent = t(matchMedia('(orientation: landscape)').matches ? 'landscape' : 'portrait');
};
matchMedia('(orientation: landscape)').addEventListener('change', showOrientation);

const renderCatalog = () => {
  const query = $('catalog.search').value.trim().toLowerCase();
  const list = $('catalog.list');
  list.replaceChildren(...products.filter((p) => !query || p.name.toLowerCase().includes(query)).map((p) =>
    el('li', { class: 'item', testid: 'catalog.item.' + p.id },
      el('button', { class: 'item-name', type: 'button', testid: 'catalog.item.' + p.id + '.name' }, p.name),
      el('div', { class: 'item-row' },
        el('span', { class: 'price', testid: 'catalog.item.' + p.id + '.price' }, money.format(p.price / 100)),
        el('button', { class: 'add-button', type: 'button', testid: 'catalog.item.' + p.id + '.add' }, t('add'))))));
};

const renderCart = () => {
  const count = [...cart.values()].reduce((a, b) => a + b, 0);
  $('header.cart-count').textContent = String(count);
  // Defect: the sentence is assembled in code from two fragments around the number, so its word order is fixed
  // by English; a translator never sees the whole sentence.
  $('cart.summary').replaceChildren(t('summaryBefore'), ' ', el('strong', {}, String(count)), ' ', t('summaryAfter'));
  $('cart.empty').hidden = count > 0;
  $('cart.summary').hidden = count === 0;
  $('cart.lines').replaceChildren(...[...cart.entries()].map(([id, qty]) => {
    const p = products.find((x) => x.id === id);
    const line = el('li', { class: 'line', testid: 'cart.line.' + id },
      el('span', { class: 'line-name', testid: 'cart.line.' + id + '.name' }, p.name),
      el('button', { type: 'button', testid: 'cart.line.' + id + '.minus' }, '−'),
      el('span', { class: 'qty', testid: 'cart.line.' + id + '.qty' }, String(qty)),
      el('button', { type: 'button', testid: 'cart.line.' + id + '.plus' }, '+'));
    swipeToRemove(line, id);
    return line;
  }));
  const total = [...cart.entries()].reduce((sum, [id, qty]) => sum + products.find((x) => x.id === id).price * qty, 0);
  $('cart.total').textContent = money.format(total / 100);
};

const swipeToRemove = (line, id) => {
  let start = null;
  line.addEventListener('pointerdown', (e) => {
    if (e.target.closest('button')) return;  // the quantity buttons take their own clicks
    start = e.clientX;
    line.setPointerCapture(e.pointerId);
  });
  line.addEventListener('pointermove', (e) => { if (start !== null) line.style.transform = 'translateX(' + (e.clientX - start) + 'px)'; });
  line.addEventListener('pointerup', (e) => {
    const moved = start === null ? 0 : e.clientX - start;
    start = null;
    line.style.transform = '';
    if (Math.abs(moved) > line.clientWidth / 3) { cart.delete(id); renderCart(); }
  });
};

const loadCatalog = async () => {
  $('catalog.error').hidden = true;
  $('catalog.loading').textContent = t('loading');
  try {
    const response = await fetch('api/products.json');
    if (!response.ok) throw new Error('HTTP ' + response.status);
    products = (await response.json()).products;
    renderCatalog();
    renderCart();
  } catch (error) {
    console.error('catalog failed to load:', String(error));
    $('catalog.error.message').textContent = t('loadError');
    $('catalog.error').hidden = false;
  } finally {
    $('catalog.loading').textContent = '';
  }
};

const loadDelivery = async () => {
  $('cart.delivery').hidden = true;
  $('cart.delivery-error').hidden = true;
  // Defect: a fixed one-second budget for the whole response; fine on a fast connection, too short on a slow one.
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 1000);
  try {
    const response = await fetch('api/delivery.json', { signal: abort.signal });
    if (!response.ok) throw new Error('HTTP ' + response.status);
    const body = await response.json();
    const day = new Intl.DateTimeFormat(navigator.language, { weekday: 'long', timeZone: 'UTC' }).format(new Date(body.earliest));
    $('cart.delivery').textContent = t('delivery', { day });
    $('cart.delivery').hidden = false;
  } catch (error) {
    console.error('delivery estimate failed:', String(error));
    $('cart.delivery-error').textContent = t('deliveryError');
    $('cart.delivery-error').hidden = false;
  } finally {
    clearTimeout(timer);
  }
};

const checkout = async () => {
  $('order.confirmation').hidden = true;
  $('order.error').hidden = true;
  try {
    const response = await fetch('api/order', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ lines: [...cart.entries()] }) });
    if (!response.ok) throw new Error('HTTP ' + response.status);
    const body = await response.json();
    $('order.confirmation').textContent = t('ordered', { order: body.order });
    $('order.confirmation').hidden = false;
    cart.clear();
    renderCart();
  } catch (error) {
    console.error('order failed:', String(error));
    $('order.error').textContent = t('orderError');
    $('order.error').hidden = false;
  }
};

const start = () => {
  document.title = t('title');
  $('header.title').textContent = t('title');
  $('header.cart-label').textContent = t('cart');
  $('catalog.search').placeholder = t('search');
  $('catalog.retry').textContent = t('retry');
  $('cart.heading').textContent = t('cartHeading');
  $('cart.empty').textContent = t('empty');
  // Defect: a hard-coded English fragment joined to a translated string ("Summe incl. VAT" in German). Set as one
  // text node, it looks translated when the rendered text is pseudolocalized whole; only the source hook shows it.
  $('cart.total-label').textContent = t('total') + ' incl. VAT';
  $('cart.clear').textContent = t('clear');
  $('cart.checkout').textContent = t('checkout');
  // Defect: the icon button's label is read from the language's own table, without the English fallback `t` has: a
  // language whose table lacks `close` (Japanese) leaves the button without an accessible name.
  $('cart.close').setAttribute('aria-label', table.close ? pseudo(table.close) : '');
  $('network.offline').textContent = t('offline');
  const online = () => { $('network.offline').hidden = navigator.onLine; };
  addEventListener('online', online);
  addEventListener('offline', online);
  online();
  showOrientation();

  $('catalog.search').addEventListener('input', renderCatalog);
  $('catalog.retry').addEventListener('click', loadCatalog);
  $('catalog.list').addEventListener('click', (e) => {
    const button = e.target.closest('button');
    if (!button) return;
    const id = Number(button.dataset.testid.split('.')[2]);
    if (button.classList.contains('add-button')) {
      cart.set(id, (cart.get(id) || 0) + 1);
      renderCart();
    } else {
      const p = products.find((x) => x.id === id);
      $('detail.title').textContent = p.name;
      $('detail.description').textContent = p.description.slice(0, 200);
      $('detail.price').textContent = money.format(p.price / 100);
      $('detail.panel').hidden = false;
    }
  });
  $('detail.close').addEventListener('click', () => { $('detail.panel').hidden = true; });
  $('header.cart').addEventListener('click', () => { $('cart.panel').hidden = false; loadDelivery(); });
  $('cart.close').addEventListener('click', () => { $('cart.panel').hidden = true; });
  $('cart.lines').addEventListener('click', (e) => {
    const button = e.target.closest('button');
    if (!button) return;
    const [, , id, action] = button.dataset.testid.split('.');
    const n = (cart.get(Number(id)) || 0) + (action === 'plus' ? 1 : -1);
    if (n > 0) cart.set(Number(id), n); else cart.delete(Number(id));
    renderCart();
  });
  $('cart.clear').addEventListener('click', () => {
    if (confirm(t('clearConfirm'))) { cart.clear(); renderCart(); }
  });
  $('cart.checkout').addEventListener('click', checkout);
  addEventListener('promo', (e) => {
    $('promo.banner').textContent = t('promo', { code: (e.detail && e.detail.code) || '' });
    $('promo.banner').hidden = false;
  });
  renderCart();
  loadCatalog();
};
start();
