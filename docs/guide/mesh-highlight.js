// Highlighting of ```mesh blocks in the guide (mdBook's highlight.js knows no mesh).
// mdBook loads this after its own highlighting has run, so it registers the language
// and highlights the mesh blocks again. The words are the language's keywords
// (core/src/syntax/keywords.rs) and type names (core/src/check/types.rs); a
// test (compiler/tests/guide.rs) holds this list to that table.
(function () {
  if (typeof hljs === "undefined") {
    return;
  }
  // KEYWORDS-BEGIN (generated from the language's keyword table; MESHC_BLESS=1 rewrites it)
  var keywords = "absent adopted after as assign at command consumer consumers container contract delivers env every exposed file for from genesis given health host image image_paths in job keep_network len matches mesh mode module mount node on operator owner ports private_address private_name provides publish read_only requires retries root seat secret sep short slug start to user when";
  var types = "bool email host_path hostname image int list mode path port secret string uid url";
  // KEYWORDS-END
  hljs.registerLanguage("mesh", function (hljs) {
    var interpolation = {
      className: "subst",
      begin: /\$\{/,
      end: /\}/,
      keywords: { literal: "true false" },
    };
    return {
      name: "mesh",
      keywords: {
        keyword: keywords,
        type: types,
        literal: "true false",
      },
      contains: [
        // `///` documents what follows; `//` is a plain comment.
        hljs.COMMENT(/\/\/\//, /$/, { className: "doctag" }),
        hljs.COMMENT(/\/\//, /$/),
        {
          className: "string",
          begin: /"""/,
          end: /"""/,
          contains: [interpolation],
        },
        {
          className: "string",
          begin: /"/,
          end: /"/,
          contains: [hljs.BACKSLASH_ESCAPE, interpolation],
        },
        {
          className: "number",
          begin: /\b(0o[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)\b/,
        },
      ],
    };
  });
  var blocks = document.querySelectorAll("code.language-mesh");
  Array.prototype.forEach.call(blocks, function (block) {
    // Undo the first pass, which read the block as no language in particular.
    block.innerHTML = block.textContent
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;");
    if (hljs.highlightElement) {
      hljs.highlightElement(block);
    } else {
      hljs.highlightBlock(block);
    }
  });
})();
