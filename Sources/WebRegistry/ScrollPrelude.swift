/// The part of the page prelude (``PagePrelude``) a vertical swipe waits with: `scrollMark` sums the vertical offsets
/// of an element and the scrollers a wheel on it can move, `wheelCounts` and `scrolledFrom` tell whether a wheel moved
/// one of them or was taken by the page's own handler. It uses the prelude's `find`; `__flowmatrix` exposes the three.
enum ScrollPrelude {
    static let source = #"""
          // swipe up/down: the element's and its scrolling ancestors' (and the page's) vertical offsets summed, and
          // whether any of them can still move that way — a wheel at the end of a list moves nothing, as a finger's does.
          const scrollMark = (id, down) => {
            let top = 0, room = false;
            const page = document.scrollingElement;
            for (let e = find(id); e; e = e.parentElement === null && e !== page ? page : e.parentElement) {
              top += e.scrollTop;
              const style = e === page ? null : getComputedStyle(e);
              if (style && !['auto', 'scroll', 'overlay'].includes(style.overflowY)) continue;
              if (down ? e.scrollHeight - e.clientHeight - e.scrollTop > 1 : e.scrollTop > 0) room = true;
              // overscroll-behavior contain or none: the wheel goes no further up than this scroller.
              if (!style || style.overscrollBehaviorY !== 'auto') break;
            }
            return { top, room };
          };
          // The wheels a handler of the page's own took (preventDefault: a scroller of its own).
          let wheelsTaken = 0;
          addEventListener('wheel', (e) => { setTimeout(() => { if (e.defaultPrevented) wheelsTaken++; }); },
            { capture: true, passive: true });
          const wheelCounts = () => ({ wheelsTaken });
          // Resolves when the offsets differ from `top` (one frame later, so the page's scroll listeners have run), when
          // a wheel since `counts` was taken by the page, or with moved: false when timeoutMs passes. Polled on a timer:
          // a smooth scroll moves over several frames, and any move will do.
          const scrolledFrom = (id, top, counts, timeoutMs) => new Promise((done) => {
            const end = performance.now() + timeoutMs;
            const tick = () => {
              if (scrollMark(id, true).top !== top) {
                const finish = () => done({ moved: true });
                requestAnimationFrame(finish);
                return setTimeout(finish, 100);
              }
              if (wheelsTaken > counts.wheelsTaken) return done({ moved: false, taken: true });
              if (performance.now() >= end) return done({ moved: false });
              setTimeout(tick, 16);
            };
            tick();
          });
        """#
}
