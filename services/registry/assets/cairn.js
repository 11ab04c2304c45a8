// Cairn review web: progressive enhancement only. Every action also works without this
// file (plain links and forms); here: live queue updates, keyboard shortcuts, and a
// confirmation before destructive buttons.
(function () {
  "use strict";

  function typing(event) {
    var t = event.target;
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }

  // --- Review queue: live updates over Server-Sent Events -----------------------------
  var region = document.getElementById("queue-region");
  var status = document.getElementById("live-status");
  // A burst of events (a batch decision, many agents submitting) costs at most two
  // requests: one refresh in flight and one more after it. Each request counts against
  // the session token's rate limit, like an API call.
  var refreshing = false;
  var again = false;
  function refreshQueue() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    again = false;
    fetch(window.location.href, { headers: { "X-Cairn-Fragment": "queue" }, credentials: "same-origin", redirect: "error" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var selected = selectedIndex();
        // Keep the patches checked for a batch decision across the refresh.
        var checked = Array.prototype.map.call(region.querySelectorAll("input[name=ids]:checked"), function (box) { return box.value; });
        region.innerHTML = html;
        Array.prototype.forEach.call(region.querySelectorAll("input[name=ids]"), function (box) {
          box.checked = checked.indexOf(box.value) >= 0;
        });
        // Keep the selection, but never move the focus away from what the user is doing.
        select(Math.min(selected, rows().length - 1), false);
        if (status) { status.textContent = "Updated " + new Date().toLocaleTimeString(); }
      })
      .catch(function (code) {
        if (status) {
          status.textContent = code === 401 ? "Your session ended: reload the page to log in again."
            : code === 429 ? "Too many requests with your token for now: the list refreshes with the next change, or reload in a minute."
            : "Could not refresh: reload the page.";
        }
      })
      .then(function () {
        refreshing = false;
        if (again) { refreshQueue(); }
      });
  }
  if (region && window.EventSource) {
    var source = new EventSource("/admin/queue/events");
    source.addEventListener("patch", refreshQueue);
    source.addEventListener("resync", refreshQueue);
    source.onopen = function () { if (status) { status.textContent = "Live: new patches appear here."; } };
    source.onerror = function () { if (status) { status.textContent = "Live updates paused; reconnecting…"; } };
  }

  // --- Keyboard shortcuts ---------------------------------------------------------------
  function rows() { return Array.prototype.slice.call(document.querySelectorAll("tr[data-href]")); }
  function selectedIndex() {
    var list = rows();
    for (var i = 0; i < list.length; i++) { if (list[i].classList.contains("selected")) { return i; } }
    return -1;
  }
  function select(index, focus) {
    var list = rows();
    list.forEach(function (row) { row.classList.remove("selected"); });
    if (index < 0 || index >= list.length) { return; }
    list[index].classList.add("selected");
    var link = list[index].querySelector("a");
    if (link && focus !== false) { link.focus(); }
  }
  // Enter opens the selected patch only when nothing else (a button, a link elsewhere)
  // has the focus.
  function onRowOrPage() {
    var active = document.activeElement;
    return !active || active === document.body || !!(active.closest && active.closest("tr[data-href]"));
  }
  function focusById(id) {
    var el = document.getElementById(id);
    if (el) { el.focus(); return true; }
    return false;
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event)) { return; }
    var key = event.key;
    if (rows().length && (key === "j" || key === "k")) {
      var i = selectedIndex();
      select(key === "j" ? Math.min(i + 1, rows().length - 1) : Math.max(i - 1, 0));
      event.preventDefault();
    } else if (rows().length && (key === "o" || (key === "Enter" && onRowOrPage())) && selectedIndex() >= 0) {
      window.location.href = rows()[selectedIndex()].getAttribute("data-href");
      event.preventDefault();
    } else if (key === "/") {
      if (focusById("filter-first")) { event.preventDefault(); }
    } else if (key === "a") {
      if (focusById("approve-button")) { event.preventDefault(); }
    } else if (key === "r") {
      if (focusById("reject-comment")) { event.preventDefault(); }
    } else if (key === "u") {
      var back = document.getElementById("back-to-queue");
      if (back) { window.location.href = back.getAttribute("href"); }
    } else if (key === "?") {
      var help = document.getElementById("shortcuts");
      if (help) { help.open = !help.open; event.preventDefault(); }
    }
  });

  // --- Large patches: "viewed" marks per file, kept in this browser per patch and round ---
  // A viewed file folds away; the file list ticks it and counts how many are left.
  document.querySelectorAll(".diff-files[data-viewed-key]").forEach(function (files) {
    var key = "cairn:viewed:" + files.getAttribute("data-viewed-key");
    var stored = {};
    try { stored = JSON.parse(window.localStorage.getItem(key) || "{}"); } catch (e) { stored = {}; }
    var list = document.getElementById("file-list");
    var boxes = files.querySelectorAll("input[data-viewed]");
    function show() {
      var seen = 0;
      boxes.forEach(function (box) {
        var anchor = box.getAttribute("data-viewed");
        var section = box.closest("section.file");
        if (section) { section.classList.toggle("viewed", box.checked); }
        if (list) {
          var link = list.querySelector('a[href="#' + anchor + '"]');
          if (link) { link.parentNode.classList.toggle("viewed", box.checked); }
        }
        if (box.checked) { seen += 1; }
      });
      var count = list && list.querySelector(".viewed-count");
      if (count) { count.hidden = false; count.textContent = "· " + seen + " of " + boxes.length + " viewed"; }
    }
    boxes.forEach(function (box) {
      box.checked = !!stored[box.getAttribute("data-viewed")];
      box.closest(".viewed-mark").hidden = false;
      box.addEventListener("change", function () {
        if (box.checked) { stored[box.getAttribute("data-viewed")] = true; } else { delete stored[box.getAttribute("data-viewed")]; }
        try { window.localStorage.setItem(key, JSON.stringify(stored)); } catch (e) { /* private mode: marks last for this page */ }
        show();
      });
    });
    show();
  });

  // --- Expand a diff's hidden lines in place ----------------------------------------------
  // Without script the link reloads the page with the file whole; with it, only that
  // file's table is replaced.
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a.expand[data-expand]") : null;
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) { return; }
    var section = document.getElementById(link.getAttribute("data-expand"));
    var table = section && section.querySelector("table.diff");
    if (!table || !window.fetch || !window.DOMParser) { return; }
    event.preventDefault();
    link.textContent = "Loading the whole file…";
    fetch(link.href, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById(section.id);
        var whole = fresh && fresh.querySelector("table.diff");
        if (!whole) { throw new Error("the file is not on the page"); }
        table.replaceWith(document.importNode(whole, true));
      })
      .catch(function () { window.location.href = link.href; });
  });

  // --- Phones: side by side would break words, so a narrow window reads the unified diff --
  var sideBySide = document.querySelector(".view-switch[data-diff-view=split]");
  var leaving = false;
  if (sideBySide && window.matchMedia && window.matchMedia("(max-width: 600px)").matches) {
    var unified = new URL(window.location.href);
    unified.searchParams.set("view", "unified");
    unified.searchParams.set("narrow", "1");
    leaving = true;
    window.location.replace(unified.toString());
  }

  // --- A refused comment keeps its text ---------------------------------------------------
  // Forms post and redirect; when the server refuses one, the page comes back with the
  // error, and what the reviewer wrote is put back where it was. Drafts live in this tab
  // only and go once the page has loaded.
  // A draft is known by its form's action, the form's own hidden fields (the thread, the
  // line, the finding) and the field's name.
  function draftKey(form, field) {
    var identity = Array.prototype.filter.call(form.querySelectorAll("input[type=hidden]"), function (input) {
      return input.name !== "csrf" && input.name !== "round";
    }).map(function (input) { return input.name + "=" + input.value; }).join("&");
    return "cairn:draft:" + form.getAttribute("action") + "|" + identity + "|" + field.name;
  }
  if (!leaving) {
    var refused = !!document.querySelector(".error[role=alert]");
    var drafts = {};
    try {
      for (var i = window.sessionStorage.length - 1; i >= 0; i -= 1) {
        var stored = window.sessionStorage.key(i);
        if (stored && stored.indexOf("cairn:draft:") === 0) {
          drafts[stored] = window.sessionStorage.getItem(stored);
          window.sessionStorage.removeItem(stored);
        }
      }
    } catch (e) { drafts = {}; }
    document.querySelectorAll("form[method=post] textarea").forEach(function (field) {
      var kept = drafts[draftKey(field.form, field)];
      if (refused && kept && !field.value) { field.value = kept; }
    });
  }
  // --- Confirm destructive actions --------------------------------------------------------
  document.addEventListener("submit", function (event) {
    var question = event.target.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { event.preventDefault(); }
  });
  // Registered after the confirmation, so a cancelled form keeps no draft.
  document.addEventListener("submit", function (event) {
    if (event.defaultPrevented) { return; }
    event.target.querySelectorAll("textarea").forEach(function (field) {
      try { if (field.value) { window.sessionStorage.setItem(draftKey(event.target, field), field.value); } } catch (e) { /* storage off: nothing kept */ }
    });
  });
})();
