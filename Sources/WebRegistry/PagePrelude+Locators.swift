extension PagePrelude {
    /// The in-page half of page objects (`PageObjects.Locator`): `find` takes a test id (a string) or a locator object
    /// `{as, testId | role + name | label | css}`; `sel` describes one for messages. Roles are the explicit `role`
    /// or the one a tag implies; names and labels compare as source text (pseudolocalized text matches too); a field
    /// with no label is known by its placeholder.
    /// Interruptions the page objects declare are dismissed while a `wait` or an action waits (`dismissInterruptions`).
    static let locators = #"""
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
        """#
}
