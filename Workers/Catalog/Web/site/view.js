// The Catalog app's screens in HTML: the same identifiers (data-testid = CatalogID) and strings as the Swift
// surfaces (CatalogEngine+Surfaces.swift), laid out by the browser (catalog.css). Content the model marks as content
// (names, prices, locale data) is `translate="no"`. Each change of the model renders
// the screen again and patches the document in place, so focused fields and scrolled lists stay as they are.
'use strict';
(() => {
  const m = window.CatalogModel;
  const s = m.state;
  const t = m.string;
  document.documentElement.lang = m.locale;
  document.documentElement.dir = m.rtl ? 'rtl' : 'ltr';

  // h('button', { testid: 'x', class: 'y' }, children…): a virtual node.
  const h = (tag, attrs, ...children) => ({ tag, attrs: attrs || {}, children: children.flat().filter((c) => c !== null && c !== false && c !== undefined) });
  const button = (id, label, extra) => h('button', Object.assign({ testid: id, type: 'button' }, extra), label);
  const text = (id, label, extra) => h('p', Object.assign({ testid: id }, extra), label);
  const nav = (leading, titleID, titleKey, trailing) => h('header', { class: 'nav' },
    h('div', { class: 'nav-leading' }, leading),
    h('h1', { testid: titleID, class: 'nav-title' }, t(titleKey)),
    h('div', { class: 'nav-trailing' }, trailing || null));
  const back = (id) => button(id, t('common.back'), { class: 'nav-button' });
  const busy = (id, key) => h('div', { class: 'row busy' }, h('span', { testid: id, class: 'spinner', role: 'progressbar' }), text(id + '.label', t(key)));

  const catalog = () => {
    const count = s.cart.reduce((n, l) => n + l.quantity, 0);
    const body = [
      h('div', { class: 'row search' },
        h('input', { testid: 'catalog.search', type: 'search', placeholder: t('catalog.search'), 'aria-label': t('catalog.search'), value: s.search }),
        s.search ? button('catalog.search.clear', '×', { class: 'icon', 'aria-label': '×' }) : null),
      h('div', { class: 'chips', role: 'toolbar' }, ['all', 'shoes', 'bags', 'accessories'].map((c) =>
        button('catalog.filter.' + c, t('catalog.filter.' + c), { class: 'chip', 'aria-pressed': String(s.filter === c) }))),
    ];
    if (s.load === 'idle' || s.load === 'loading') body.push(busy('catalog.loading', 'catalog.loading'));
    else if (s.load === 'failed') body.push(text('catalog.error', t(s.loadError)), button('catalog.retry', t('common.retry'), { class: 'primary' }));
    else {
      if (s.refreshing) body.push(busy('catalog.refreshing', 'catalog.refreshing'));
      const list = m.filtered();
      body.push(text('catalog.result-count', t('catalog.results', { count: m.format.number(list.length) }), { class: 'caption', 'data-value': String(list.length) }));
      if (!list.length) body.push(text('catalog.empty', t('catalog.empty')));
      else body.push(h('ul', { testid: 'catalog.list', class: 'list', 'data-value': String(list.length) }, list.map((p, i) =>
        h('li', { testid: 'catalog.item.' + i, class: 'product', 'data-value': p.id },
          h('div', { testid: 'catalog.item.' + i + '.image', class: 'thumb', role: 'img', 'aria-label': p.name }),
          h('p', { testid: 'catalog.item.' + i + '.title', class: 'product-title', translate: 'no' }, p.name),
          h('p', { testid: 'catalog.item.' + i + '.price', class: 'price', translate: 'no', 'data-value': String(p.priceMinor) }, m.format.price(p.priceMinor)),
          button('catalog.item.' + i + '.add', '+', { class: 'icon', 'aria-label': t('item.addToCart') + ' ' + p.name })))));
    }
    return [nav(button('catalog.settings-button', '⚙', { class: 'icon', 'aria-label': t('settings.title') }), 'catalog.title', 'catalog.title',
      button('catalog.cart-button', t('common.cart'), { class: 'nav-button', 'data-value': String(count) }, h('span', { class: 'badge' }, String(count)))),
    h('main', { class: 'body' }, body)];
  };

  const item = () => {
    const p = m.product();
    const top = nav(back('item.back'), 'item.title', 'item.title');
    if (!p) return [top, h('main', { class: 'body' }, busy('catalog.loading', 'catalog.loading'))];
    return [top,
      h('main', { class: 'body' },
        h('div', { testid: 'item.image', class: 'hero', role: 'img', 'aria-label': p.name }),
        h('h2', { testid: 'item.name', class: 'large', translate: 'no', 'data-value': p.id }, p.name),
        text('item.stock', p.stock > 0 ? t('item.inStock', { count: m.format.number(p.stock) }) : t('item.outOfStock'), { class: 'caption', 'data-value': String(p.stock) }),
        text('item.description', p.summary, { translate: 'no' })),
      h('footer', { class: 'bottom' },
        s.showAddedToast ? text('item.added', t('item.added'), { class: 'toast', role: 'status' }) : null,
        h('div', { class: 'row buy' },
          h('p', { testid: 'item.price', class: 'price headline', translate: 'no', 'data-value': String(p.priceMinor) }, m.format.price(p.priceMinor)),
          button('item.add-to-cart', t('item.addToCart'), { class: 'primary fill', disabled: p.stock <= 0 })))];
  };

  const cart = () => {
    const top = nav(back('cart.back'), 'cart.title', 'cart.title');
    const c = s.checkout;
    if (c.state === 'placed') return [top, h('main', { class: 'body' },
      text('cart.confirmation', t('cart.confirmation', { number: c.number }), { class: 'headline', 'data-value': c.number }),
      text('cart.delivery-date', t('cart.delivery', { date: c.date })),
      button('cart.continue-shopping', t('cart.continue'), { class: 'primary' }))];
    if (!s.cart.length) return [top, h('main', { class: 'body' }, text('cart.empty', t('cart.empty')), button('cart.continue-shopping', t('cart.continue'), { class: 'primary' }))];
    const total = s.cart.reduce((n, l) => n + l.product.priceMinor * l.quantity, 0);
    return [top,
      h('main', { class: 'body' },
        h('ul', { class: 'lines' }, s.cart.map((l, i) => h('li', { testid: 'cart.line.' + i, class: 'line', 'data-value': l.product.id },
          h('div', { class: 'row' },
            h('p', { testid: 'cart.line.' + i + '.title', class: 'fill', translate: 'no' }, l.product.name),
            h('p', { testid: 'cart.line.' + i + '.price', class: 'price', translate: 'no', 'data-value': String(l.product.priceMinor * l.quantity) }, m.format.price(l.product.priceMinor * l.quantity))),
          h('div', { class: 'row' },
            text('cart.line.' + i + '.quantity', t('cart.quantity', { count: m.format.number(l.quantity) }), { class: 'caption', 'data-value': String(l.quantity) }),
            button('cart.line.' + i + '.decrement', '−', { class: 'icon', 'aria-label': '−' }),
            button('cart.line.' + i + '.increment', '+', { class: 'icon', 'aria-label': '+' }))))),
        h('div', { class: 'row total' },
          text('cart.total.label', t('cart.total'), { class: 'headline' }),
          // The model's own defect, ported as it is: the amount is aligned right, not to the trailing edge.
          text('cart.total.amount', m.format.price(total), { class: 'headline fill amount', translate: 'no', 'data-value': String(total) })),
        c.state === 'failed' ? text('cart.error', t(c.key), { class: 'error', role: 'alert' }) : null),
      h('footer', { class: 'bottom' }, c.state === 'submitting' ? busy('cart.submitting', 'cart.submitting')
        : button('cart.checkout', t('cart.checkout'), { class: 'primary fill' }))];
  };

  const signin = () => [nav(button('signin.cancel', t('common.cancel'), { class: 'nav-button' }), 'signin.title', 'signin.title'),
    h('main', { class: 'body' },
      h('input', { testid: 'signin.email', type: 'email', placeholder: t('signin.email'), 'aria-label': t('signin.email'), value: s.email }),
      h('input', { testid: 'signin.password', type: 'password', placeholder: t('signin.password'), 'aria-label': t('signin.password'), value: s.password }),
      s.signInError ? text('signin.error', t(s.signInError), { class: 'error', role: 'alert' }) : null,
      s.signingIn ? busy('signin.submitting', 'signin.submitting')
        : button('signin.submit', t('signin.submit'), { class: 'primary fill', disabled: !(s.email && s.password) }))];

  const settings = () => [nav(back('settings.back'), 'settings.title', 'settings.title'),
    h('main', { class: 'body' },
      s.signedInEmail !== null ? [text('settings.account', t('settings.account', { email: s.signedInEmail }), { 'data-value': s.signedInEmail }),
        button('settings.sign-out', t('settings.signOut'), { class: 'primary fill' })]
        : button('settings.sign-in', t('settings.signIn'), { class: 'primary fill' }),
      h('div', { class: 'row' },
        text('settings.notifications.label', t('settings.notifications'), { class: 'fill', id: 'notifications-label' }),
        h('button', { testid: 'settings.notifications', type: 'button', role: 'switch', class: 'switch', 'aria-checked': String(s.notificationsOn), 'aria-labelledby': 'notifications-label' })),
      h('div', { class: 'row' },
        text('settings.language.label', t('settings.language')),
        text('settings.language', m.format.language(), { class: 'fill trailing', translate: 'no', 'data-value': m.locale })),
      // The version line is built in code (the model's own defect, ported as it is).
      text('settings.version', 'Version 2.3.1', { class: 'caption' }))];

  const overlays = () => {
    const out = [];
    if (s.banner) out.push(h('div', { testid: 'banner.push', class: 'banner', role: 'status' }, t(s.banner.key)));
    const alert = s.alerts[0];
    if (alert) {
      const [id, title, no, noKey, yes, yesKey] = alert === 'permission'
        ? ['alert.permission', 'alert.permission.title', 'alert.permission.dont-allow', 'alert.permission.deny', 'alert.permission.allow', 'alert.permission.allow']
        : ['alert.rate', 'alert.rate.title', 'alert.rate.not-now', 'alert.rate.notNow', 'alert.rate.rate', 'alert.rate.rate'];
      out.push(h('div', { class: 'scrim' }, h('div', { testid: id, class: 'alert', role: 'alertdialog', 'aria-label': t(title) },
        h('p', { class: 'alert-title' }, t(title)),
        h('div', { class: 'alert-buttons' }, button(no, t(noKey)), button(yes, t(yesKey))))));
    }
    return out;
  };

  const screens = { catalog, item, cart, signin, settings };
  const view = () => h('div', { id: 'app', class: 'screen-' + m.current() }, screens[m.current()](), overlays());

  // --- patching the document: same tag and position → update in place ---
  const create = (v) => {
    if (typeof v === 'string') return document.createTextNode(v);
    const el = document.createElement(v.tag);
    update(el, v);
    return el;
  };
  const setAttributes = (el, attrs) => {
    const want = {};
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'value' || v === false || v === null) continue;
      want[k === 'testid' ? 'data-testid' : k] = v === true ? '' : String(v);
    }
    for (const a of [...el.attributes]) if (!(a.name in want)) el.removeAttribute(a.name);
    for (const [k, v] of Object.entries(want)) if (el.getAttribute(k) !== v) el.setAttribute(k, v);
    if ('value' in attrs && el.value !== attrs.value && document.activeElement !== el) el.value = attrs.value;
  };
  const update = (el, v) => {
    setAttributes(el, v.attrs);
    const kids = v.children;
    for (let i = 0; i < kids.length; i++) {
      const have = el.childNodes[i], want = kids[i];
      if (!have) el.appendChild(create(want));
      else if (typeof want === 'string') {
        if (have.nodeType === 3) { if (have.data !== want) have.data = want; } else el.replaceChild(create(want), have);
      } else if (have.nodeType === 1 && have.tagName === want.tag.toUpperCase()
        && (have.getAttribute('data-testid') || '') === (want.attrs.testid || '')) update(have, want);
      else el.replaceChild(create(want), have);
    }
    while (el.childNodes.length > kids.length) el.removeChild(el.lastChild);
  };
  const render = () => update(document.getElementById('app'), view());

  // --- input: taps, typing, swipes ---
  document.addEventListener('click', (e) => {
    const el = e.target.closest('button[data-testid], li[data-testid^="catalog.item."], div[data-testid="banner.push"]');
    if (el && !el.disabled) m.tap(el.getAttribute('data-testid'));
  });
  document.addEventListener('input', (e) => {
    const id = e.target.getAttribute && e.target.getAttribute('data-testid');
    if (id) m.type(id, e.target.value);
  });
  let drag = null;
  document.addEventListener('pointerdown', (e) => {
    const el = e.target.closest('li[data-testid^="cart.line."], div[data-testid="banner.push"]');
    drag = el ? { id: el.getAttribute('data-testid'), x: e.clientX } : null;
  });
  document.addEventListener('pointerup', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x;
    if (Math.abs(dx) > 40) m.swipe(drag.id, dx < 0 ? 'left' : 'right');
    drag = null;
  });

  m.onChange(render);
  const route = () => {
    const [screen, argument] = (location.hash.slice(1) || 'catalog').split('/');
    m.open(screens[screen] ? screen : 'catalog', argument && decodeURIComponent(argument));
  };
  addEventListener('hashchange', route);
  route();
})();
