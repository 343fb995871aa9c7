// Autocomplete for search boxes marked data-suggest="/search/suggest": the best few matches as a list of links
// under the box while typing (arrow keys move, Enter follows, Escape closes). Without it the form still submits.
(function () {
  "use strict";

  var DELAY_MS = 120;
  var MIN_CHARS = 2;

  function attach(input) {
    var url = input.getAttribute("data-suggest");
    var list = document.createElement("ul");
    var timer = null;
    var asked = "";
    var active = -1;
    list.className = "suggestions";
    list.id = input.id + "-suggestions";
    list.setAttribute("role", "listbox");
    list.hidden = true;
    input.setAttribute("aria-controls", list.id);
    input.setAttribute("aria-autocomplete", "list");
    input.parentNode.insertBefore(list, input.nextSibling);

    function close() {
      list.hidden = true;
      active = -1;
    }

    function show(items) {
      list.textContent = "";
      items.forEach(function (item) {
        var li = document.createElement("li");
        var link = document.createElement("a");
        var kind = document.createElement("span");
        li.setAttribute("role", "option");
        link.href = item.url;
        link.textContent = item.label;
        kind.className = "badge";
        kind.textContent = item.kind;
        li.appendChild(link);
        li.appendChild(document.createTextNode(" "));
        li.appendChild(kind);
        list.appendChild(li);
      });
      list.hidden = items.length === 0;
      active = -1;
    }

    function ask() {
      var text = input.value.trim();
      if (text.length < MIN_CHARS) {
        close();
        return;
      }
      asked = text;
      fetch(url + "?q=" + encodeURIComponent(text), {headers: {Accept: "application/json"}})
        .then(function (response) { return response.ok ? response.json() : {suggestions: []}; })
        .then(function (body) {
          if (asked === text) {
            show(body.suggestions || []);
          }
        })
        .catch(close);
    }

    function move(step) {
      var items = list.querySelectorAll("li");
      if (!items.length) {
        return;
      }
      if (active >= 0) {
        items[active].removeAttribute("aria-selected");
      }
      active = (active + step + items.length) % items.length;
      items[active].setAttribute("aria-selected", "true");
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(ask, DELAY_MS);
    });
    input.addEventListener("keydown", function (event) {
      if (list.hidden) {
        return;
      }
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        move(event.key === "ArrowDown" ? 1 : -1);
      } else if (event.key === "Enter" && active >= 0) {
        event.preventDefault();
        window.location.href = list.querySelectorAll("li a")[active].href;
      } else if (event.key === "Escape") {
        close();
      }
    });
    input.addEventListener("blur", function () { setTimeout(close, 150); });
  }

  var inputs = document.querySelectorAll("input[data-suggest]");
  for (var i = 0; i < inputs.length; i++) {
    attach(inputs[i]);
  }
})();
