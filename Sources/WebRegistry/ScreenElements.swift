/// The part of the page prelude (``PagePrelude``) that lists the elements on screen for a step's evidence
/// (`elements.json`): each element carrying the identifier attribute whose box is on screen, with its identifier, its box
/// in CSS pixels of the viewport (the screenshot's coordinates) and its first 80 characters of text, at most 500. The
/// report draws them over the step's picture and offers "did you mean" from their identifiers (docs/REPORTS.md), and
/// visual masks take their boxes (`scale`: device pixels a CSS pixel; docs/VISUAL.md).
enum ScreenElements {
    /// JavaScript defining `onScreen()` inside the prelude's function (it reads the prelude's `config`).
    static let source = #"""
          // The elements on screen with their identifiers and boxes (CSS pixels in the viewport, as the screenshot),
          // at most 500: the report draws them over the step's picture and lists them ("did you mean").
          const onScreen = () => {
            const out = [];
            for (const el of document.querySelectorAll('[' + config.attr + ']')) {
              const r = el.getBoundingClientRect();
              if (r.width <= 0 || r.height <= 0 || r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) continue;
              const field = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement;
              const text = ((field ? el.value : el.textContent) || '').trim();
              out.push({ id: el.getAttribute(config.attr), box: [r.left, r.top, r.width, r.height].map((v) => Math.round(v * 10) / 10),
                text: text.replace(/\s+/g, ' ').slice(0, 80) });
              if (out.length >= 500) break;
            }
            return { viewport: [innerWidth, innerHeight], scale: window.devicePixelRatio, elements: out };
          };
        """#
}
