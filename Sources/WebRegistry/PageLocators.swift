/// The part of the page prelude (`PagePrelude`) that finds elements and judges their state.
enum PageLocators {
    /// The in-page half of page objects (`PageObjects.Locator`): `find` takes a test id (a string) or a locator object
    /// `{as, testId | role + name | label | css}`; `sel` describes one for messages. Roles are the explicit `role`
    /// or the one a tag implies; names and labels compare as source text (pseudolocalized text matches too); a field
    /// with no label is known by its placeholder.
    /// Interruptions the page objects declare are dismissed while a `wait` or an action waits (`dismissInterruptions`).
    static let script = #"""
          const query = (id) => '[' + config.attr + '="' + CSS.escape(id) + '"]';
          const squash = (t) => (t || '').replace(/\s+/g, ' ').trim();
          const impliedRoles = { BUTTON: 'button', H1: 'heading', H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading',
            H6: 'heading', SELECT: 'combobox', TEXTAREA: 'textbox', NAV: 'navigation', UL: 'list', OL: 'list', LI: 'listitem',
            IMG: 'img', DIALOG: 'dialog', MAIN: 'main', HEADER: 'banner', FOOTER: 'contentinfo', FORM: 'form', TABLE: 'table' };
          const roleOf = (el) => {
            const explicit = el.getAttribute('role');
            if (explicit) return explicit.trim().split(/\s+/)[0];
            if (el.tagName === 'INPUT') {
              const t = (el.getAttribute('type') || 'text').toLowerCase();
              if (t === 'checkbox' || t === 'radio') return t;
              if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
              return t === 'search' ? 'searchbox' : t === 'range' ? 'slider' : 'textbox';
            }
            if (el.tagName === 'A') return el.hasAttribute('href') ? 'link' : null;
            return impliedRoles[el.tagName] || null;
          };
          const labelOf = (el) => {
            const by = el.getAttribute('aria-labelledby');
            if (by) return squash(by.split(/\s+/).map((i) => { const n = document.getElementById(i); return n ? n.textContent : ''; }).join(' '));
            const aria = el.getAttribute('aria-label');
            if (aria) return squash(aria);
            if (el.labels && el.labels.length) return squash([...el.labels].map((l) => l.textContent).join(' '));
            // A field with no label at all is known by its placeholder.
            return el.getAttribute('placeholder') ? squash(el.getAttribute('placeholder')) : null;
          };
          const nameOf = (el) => {
            const label = labelOf(el);
            if (label) return label;
            if (el.tagName === 'INPUT') return squash(el.value || el.getAttribute('title') || '');
            return squash(el.innerText !== undefined ? el.innerText : el.textContent) || squash(el.getAttribute('title') || el.getAttribute('alt') || '');
          };
          const find = (loc) => {
            if (typeof loc === 'string') return document.querySelector(query(loc));
            if (loc.testId !== undefined) return document.querySelector(query(loc.testId));
            if (loc.css !== undefined) return document.querySelector(loc.css);
            if (loc.label !== undefined) {
              for (const el of document.querySelectorAll('input, textarea, select, [role], [contenteditable]')) {
                const label = labelOf(el);
                if (label !== null && sameText(label, loc.label)) return el;
              }
              return null;
            }
            let hidden = null;
            for (const el of document.body ? document.body.querySelectorAll('*') : []) {
              if (roleOf(el) !== loc.role || !sameText(nameOf(el), loc.name)) continue;
              if (visible(el)) return el;
              hidden = hidden || el;
            }
            return hidden;
          };
          const sel = (loc) => {
            if (typeof loc === 'string') return '[' + config.attr + '="' + loc + '"]';
            if (loc.testId !== undefined) return loc.as + ' ([' + config.attr + '="' + loc.testId + '"])';
            if (loc.css !== undefined) return loc.as + ' (css ' + loc.css + ')';
            if (loc.label !== undefined) return loc.as + ' (label "' + loc.label + '")';
            return loc.as + ' (role ' + loc.role + ' "' + loc.name + '")';
          };
          // In-page interruptions (an alert the app draws): dismissed when visible and not what the step waits for.
          const interrupted = [];
          const dismissInterruptions = (awaited) => {
            for (const i of config.interruptions || []) {
              const el = find(i.element);
              if (!el || !visible(el)) continue;
              const target = awaited == null ? null : find(awaited);
              if (target && (el === target || el.contains(target))) continue;
              const button = find(i.dismiss);
              if (!button) continue;
              button.click();
              interrupted.push(i.name);
            }
          };
          const takeInterruptions = () => interrupted.splice(0);
          const focus = (id) => {
            const el = find(id);
            if (!el) return { ok: false, detail: 'no element matches ' + sel(id) };
            el.focus();
            return document.activeElement === el ? { ok: true } : { ok: false, detail: sel(id) + ' cannot take focus' };
          };
          // An element's value: a form control's, a switch's or checkbox's on/off, else aria-valuenow or data-value.
          const valueOf = (el) => {
            if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) {
              return el.type === 'checkbox' ? (el.checked ? 'on' : 'off') : el.value;
            }
            const checked = el.getAttribute('aria-checked');
            if (checked !== null && ['switch', 'checkbox'].includes(el.getAttribute('role'))) return checked === 'true' ? 'on' : 'off';
            return el.getAttribute('aria-valuenow') ?? el.getAttribute('data-value') ?? '';
          };
          // The element-state conditions of `assert`: enabled, disabled, selected, not-selected, hittable.
          const stateCheck = (c, el, where) => {
            switch (c.kind) {
                case 'enabled': case 'disabled': {
                  if (!el) return { ok: false, detail: 'no element matches ' + where };
                  const off = el.disabled === true || el.getAttribute('aria-disabled') === 'true';
                  return off === (c.kind === 'disabled') ? { ok: true } : { ok: false, detail: where + ' is ' + (off ? 'disabled' : 'enabled') };
                }
                case 'selected': case 'not-selected': {
                  if (!el) return { ok: false, detail: 'no element matches ' + where };
                  const on = ['aria-selected', 'aria-pressed', 'aria-checked'].some((a) => el.getAttribute(a) === 'true') || el.checked === true;
                  return on === (c.kind === 'selected') ? { ok: true } : { ok: false, detail: where + ' is ' + (on ? '' : 'not ') + 'selected' };
                }
                case 'hittable': {
                  if (!visible(el)) return { ok: false, detail: el ? where + ' is not visible' : 'no element matches ' + where };
                  const r = el.getBoundingClientRect();
                  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                  return hit && (hit === el || el.contains(hit)) ? { ok: true } : { ok: false, detail: where + ' is covered by ' + describe(hit) };
                }
            }
            return { ok: false, detail: 'unknown condition ' + c.kind };
          };
        """#
}
