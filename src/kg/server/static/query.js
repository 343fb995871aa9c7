// The query page: run the editor's query by POST to the endpoint and show the results in place.
// Without this script the form still submits and the example links still work.
(function () {
  "use strict";

  var form = document.getElementById("query-form");
  if (!form) {
    return;
  }
  var editor = document.getElementById("query-text");
  var results = document.getElementById("results");
  var statusLine = document.getElementById("query-status");
  var errorBox = document.getElementById("query-error");
  var endpoint = form.getAttribute("action");
  var idSpace = results.getAttribute("data-id-space");
  var pageRoot = results.getAttribute("data-page-root");
  var ACCEPT = "application/sparql-results+json, text/turtle;q=0.9";
  var XSD = "http://www.w3.org/2001/XMLSchema#";
  var XSD_STRING = XSD + "string";

  function endpointPath() {
    var url = new URL(endpoint, window.location.href);
    return url.pathname;
  }

  function updateLinks() {
    var links = document.querySelectorAll("a[data-format]");
    for (var i = 0; i < links.length; i++) {
      var params = new URLSearchParams();
      params.set("query", editor.value);
      params.set("format", links[i].getAttribute("data-format"));
      links[i].setAttribute("href", endpointPath() + "?" + params.toString());
    }
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  function showError(message) {
    clear(errorBox);
    var heading = document.createElement("h2");
    heading.textContent = "The query failed";
    var text = document.createElement("pre");
    text.textContent = message;
    errorBox.appendChild(heading);
    errorBox.appendChild(text);
    errorBox.hidden = false;
    statusLine.textContent = "";
    clear(results);
  }

  function cell(binding) {
    var td = document.createElement("td");
    if (!binding) {
      var unbound = document.createElement("span");
      unbound.className = "unbound";
      unbound.setAttribute("aria-label", "unbound");
      unbound.textContent = "–";
      td.appendChild(unbound);
      return td;
    }
    if (binding.type === "uri") {
      if (idSpace && binding.value.indexOf(idSpace) === 0 && binding.value.length > idSpace.length) {
        var a = document.createElement("a");
        a.href = pageRoot + binding.value.slice(idSpace.length);
        a.textContent = binding.value;
        td.appendChild(a);
      } else {
        var iri = document.createElement("span");
        iri.className = "iri";
        iri.textContent = binding.value;
        td.appendChild(iri);
      }
      return td;
    }
    var value = document.createElement("span");
    value.textContent = binding.type === "bnode" ? "_:" + binding.value : binding.value;
    td.appendChild(value);
    var builtin = binding.datatype && binding.datatype.indexOf(XSD) === 0;
    if (builtin && binding.datatype !== XSD_STRING) {
      value.title = "xsd:" + binding.datatype.slice(XSD.length);
    }
    var note = binding["xml:lang"] ? "@" + binding["xml:lang"] :
      (binding.datatype && !builtin ? binding.datatype : "");
    if (binding["xml:lang"]) {
      value.setAttribute("lang", binding["xml:lang"]);
    }
    if (note) {
      var meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = " " + note;
      td.appendChild(meta);
    }
    return td;
  }

  function showTable(data) {
    clear(results);
    if (typeof data.boolean === "boolean") {
      var p = document.createElement("p");
      p.className = "boolean";
      p.textContent = String(data.boolean);
      results.appendChild(p);
      statusLine.textContent = "Answer: " + (data.boolean ? "yes" : "no") + ".";
      return;
    }
    var vars = data.head.vars || [];
    var rows = data.results.bindings || [];
    var wrapper = document.createElement("div");
    wrapper.className = "scroll";
    var table = document.createElement("table");
    table.className = "results";
    var caption = document.createElement("caption");
    caption.className = "visually-hidden";
    caption.textContent = "Query results";
    table.appendChild(caption);
    var head = document.createElement("thead");
    var headRow = document.createElement("tr");
    vars.forEach(function (name) {
      var th = document.createElement("th");
      th.scope = "col";
      th.textContent = name;
      headRow.appendChild(th);
    });
    head.appendChild(headRow);
    table.appendChild(head);
    var body = document.createElement("tbody");
    rows.forEach(function (row) {
      var tr = document.createElement("tr");
      vars.forEach(function (name) {
        tr.appendChild(cell(row[name]));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    wrapper.appendChild(table);
    results.appendChild(wrapper);
    statusLine.textContent = rows.length + (rows.length === 1 ? " row." : " rows.");
  }

  function showText(text) {
    clear(results);
    var pre = document.createElement("pre");
    pre.className = "graph";
    pre.textContent = text;
    results.appendChild(pre);
    statusLine.textContent = "Graph result (Turtle).";
  }

  function run() {
    errorBox.hidden = true;
    clear(errorBox);
    statusLine.textContent = "Running…";
    updateLinks();
    var body = new URLSearchParams();
    body.set("query", editor.value);
    fetch(endpoint, {
      method: "POST",
      headers: {"Accept": ACCEPT, "Content-Type": "application/x-www-form-urlencoded"},
      body: body.toString()
    }).then(function (response) {
      return response.text().then(function (text) {
        if (!response.ok) {
          showError(text.trim() || (response.status + " " + response.statusText));
          return;
        }
        var type = response.headers.get("Content-Type") || "";
        if (type.indexOf("application/sparql-results+json") === 0) {
          showTable(JSON.parse(text));
        } else {
          showText(text);
        }
      });
    }).catch(function (error) {
      showError(String(error));
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    run();
  });
  editor.addEventListener("input", updateLinks);
  editor.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      run();
    }
  });
  var examples = document.querySelectorAll("a.example[data-query]");
  for (var i = 0; i < examples.length; i++) {
    examples[i].addEventListener("click", function (event) {
      event.preventDefault();
      editor.value = this.getAttribute("data-query");
      editor.focus();
      run();
    });
  }
  updateLinks();
})();
