/// The pages' one script, served from lockr itself (the Content-Security-Policy allows no inline
/// script). Pages work without it; with it, the sentence cannot be pasted or dropped into its
/// field, as the CLI refuses pasted input: it has to be typed. (A browser's own tools can still get
/// around that; the sentence's point is the effort of typing it.)
enum WebScript {
    static let javascript = """
        "use strict";
        document.addEventListener("DOMContentLoaded", () => {
          for (const field of document.querySelectorAll("input[name=phrase]")) {
            for (const kind of ["paste", "drop"]) {
              field.addEventListener(kind, (event) => {
                event.preventDefault();
                field.setCustomValidity("Type the sentence: pasting it is not taken.");
                field.reportValidity();
              });
            }
            field.addEventListener("input", () => field.setCustomValidity(""));
          }
        });
        """
}
