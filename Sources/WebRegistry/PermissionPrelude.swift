/// The part of the page prelude (``PagePrelude``) that makes permission requests interruptions: the page's
/// geolocation, notification, camera, microphone and clipboard calls wait until the driver has applied the monitor's
/// decision (told through the `__flowmatrixPermission` binding; `permissionDecided` lets the call go on), and a
/// location request counts as in flight until its first callback. It defines `waiting`, `located`, `ask` and
/// `permissionDecided` in the prelude's scope, where `__flowmatrix` exposes them (`permissionsPending` for the
/// screenshot's settle, ``ScreenshotFreeze``).
enum PermissionPrelude {
    static let source = #"""
          // Permission requests are interruptions: the page's call waits until the driver has applied the monitor's
          // decision to the browser context (it is told through the binding), then runs for real.
          const waiting = new Map();
          const decided = new Set();
          let nextRequest = 1;
          const ask = (name) => {
            const report = window.__flowmatrixPermission;
            if (decided.has(name) || typeof report !== 'function') return Promise.resolve();
            return new Promise((resolve) => {
              const id = nextRequest++;
              waiting.set(id, () => { decided.add(name); resolve(); });
              report(JSON.stringify({ id, name }));
            });
          };
          const permissionDecided = (id) => { const go = waiting.get(id); waiting.delete(id); if (go) go(); return !!go; };
          const askAll = (names) => names.reduce((p, n) => p.then(() => ask(n)), Promise.resolve());
          // A geolocation call is answered by the browser after its permission is decided, a round trip later: until
          // its first callback runs (or 2 s, or its own timeout) it is in flight, and a screenshot waits for it
          // (`permissionsPending`), as for a request.
          let located = 0;
          const locating = (ok, fail, options) => {
            let open = true;
            located++;
            const end = () => { if (open) { open = false; located--; } };
            const limit = options && Number.isFinite(options.timeout) ? Math.min(options.timeout, 2000) : 2000;
            setTimeout(end, limit);
            const after = (f) => function (...a) { end(); if (typeof f === 'function') return f.apply(this, a); };
            return [after(ok), after(fail)];
          };
          if (window.Geolocation) {
            const proto = Geolocation.prototype, get = proto.getCurrentPosition, watch = proto.watchPosition, clear = proto.clearWatch;
            const watches = new Map();
            let nextWatch = 1;
            proto.getCurrentPosition = function (ok, fail, options) {
              const [answer, error] = locating(ok, fail, options);
              ask('geolocation').then(() => get.call(this, answer, error, options));
            };
            proto.watchPosition = function (ok, fail, options) {
              const id = nextWatch++;
              watches.set(id, null);
              const [first, error] = locating(ok, fail, options);
              ask('geolocation').then(() => { if (watches.has(id)) watches.set(id, watch.call(this, first, error, options)); });
              return id;
            };
            proto.clearWatch = function (id) { const real = watches.get(id); watches.delete(id); if (real != null) clear.call(this, real); };
          }
          if (window.Notification && Notification.requestPermission) {
            const request = Notification.requestPermission;
            Notification.requestPermission = function (callback) {
              const answer = ask('notifications').then(() => request.call(Notification));
              if (typeof callback === 'function') answer.then(callback);
              return answer;
            };
          }
          if (window.MediaDevices && MediaDevices.prototype.getUserMedia) {
            const media = MediaDevices.prototype.getUserMedia;
            MediaDevices.prototype.getUserMedia = function (c) {
              const names = [...(c && c.video ? ['camera'] : []), ...(c && c.audio ? ['microphone'] : [])];
              return askAll(names).then(() => media.call(this, c));
            };
          }
          if (window.Clipboard) for (const key of ['read', 'readText']) {
            const original = Clipboard.prototype[key];
            if (original) Clipboard.prototype[key] = function () { return ask('clipboard-read').then(() => original.call(this)); };
          }
        """#
}
