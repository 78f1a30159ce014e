const BASE = "https://cdn.example.org/assets";

// A tiny template compiler: the body is built from a local template string.
function compile(tpl) {
  const body = "return `" + tpl.replace(/`/g, "\\`") + "`;";
  return new Function("d", body);
}

const render = compile("<img src='${d.src}'>");
console.log(render({ src: BASE + "/logo.png" }));
