import FlowCrypto
import Foundation

/// The style and script of the report's "Visual changes" section (``VisualSection``): three views of a changed step
/// (side by side, overlay, slider) switched by radio buttons in CSS; the script only moves the sliders and marks
/// pictures loaded (`data-loaded`) for the browser tests. The script's hash joins the page's Content-Security-Policy.
enum VisualAssets {
    static let style = """
        .vis{margin:.6em 0 1.2em}.vis>input{margin-left:1em}
        .vis-side,.vis-overlay,.vis-slider{display:none;margin-top:.4em}
        .vis>input[value=side]:checked~.vis-side{display:flex;gap:.6em;flex-wrap:wrap}
        .vis>input[value=overlay]:checked~.vis-overlay,.vis>input[value=slider]:checked~.vis-slider{display:block}
        .vis figure{margin:0}.vis figcaption{font-size:.85em;color:#666}
        .vis img{max-width:420px;border:1px solid #ccc;display:block}
        .vis-stack{position:relative;display:inline-block}.vis-stack img{max-width:640px}
        .vis-stack img+img{position:absolute;left:0;top:0}
        .vis-overlay .vis-stack img+img{opacity:.5}
        .vis-slider input[type=range]{display:block;width:640px;max-width:100%}
        """

    static let script = """
        (function(){
          var stacks = document.querySelectorAll('.vis-slider');
          function apply(box){
            var range = box.querySelector('input[type=range]'), top = box.querySelector('img.vis-clip');
            if (!range || !top) return;
            top.style.clipPath = 'inset(0 ' + (100 - Number(range.value)) + '% 0 0)';
            box.setAttribute('data-position', range.value);
          }
          stacks.forEach(function(box){
            apply(box);
            var range = box.querySelector('input[type=range]');
            if (range) range.addEventListener('input', function(){ apply(box); });
          });
          var images = Array.prototype.slice.call(document.querySelectorAll('#visual img'));
          Promise.all(images.map(function(img){
            return new Promise(function(done){
              function mark(){ img.setAttribute('data-loaded', img.naturalWidth > 0 ? 'true' : 'false'); done(); }
              if (img.complete) mark(); else { img.addEventListener('load', mark); img.addEventListener('error', mark); }
            });
          })).then(function(){
            var section = document.getElementById('visual');
            if (section) section.setAttribute('data-visual-ready', 'true');
          });
        })();
        """

    /// `'sha256-…'` of ``script`` for the Content-Security-Policy.
    static var scriptHashSource: String {
        "'sha256-" + Data(SHA256.hash(Array(script.utf8))).base64EncodedString() + "'"
    }
}
