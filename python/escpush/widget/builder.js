// escpush's filter builder: the front end of escpush.widget.FilterBuilder (anywidget).
//
// It draws what the Python side sends and sends back what a person does; it decides nothing.
// The fields, their types and the operators each takes (SPEC table B.1), the operators'
// meanings and value shapes, problems, limits, the text form and the JSON all come from the
// model ("schema", "report", "sample_report"), computed by escpush's core. The rows are the
// model's "tree": a group {id, join, items} of rows {id, key, operator, value} and groups.

const SVG_NS = "http://www.w3.org/2000/svg";
let counter = 0;

function newId(prefix) {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}`;
}

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "className") el.className = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name === "value") el.value = value;
    else el.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// A <select> named `name`: its class `ep-<name>`, its test id `name`, its label for screen readers.
function select(name, label, onchange, ...options) {
  return h("select", { className: `ep-${name}`, "data-testid": name, "aria-label": label, onchange }, ...options);
}

function icon(path) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add("ep-icon");
  const p = document.createElementNS(SVG_NS, "path");
  p.setAttribute("d", path);
  svg.append(p);
  return svg;
}

const ICONS = {
  close: "M4 4l8 8M12 4l-8 8",
  plus: "M8 3v10M3 8h10",
  copy: "M5 5h8v8H5zM3 11V3h8",
};

function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

function findNode(node, id, parent = null) {
  if (node.id === id) return { node, parent };
  for (const item of node.items || []) {
    const found = findNode(item, id, node);
    if (found) return found;
  }
  return null;
}

function formatCount(n) {
  return n === null || n === undefined ? "–" : Number(n).toLocaleString("en-US");
}

// What is shown of a scan's counts as text (shares, sizes, the breakdown's rows) comes made by
// Python, in `sample_report.shown` (escpush's one formatter of each); a missing text shows as –.
function shownText(value) {
  return value === null || value === undefined ? "–" : value;
}

function render({ model, el }) {
  let tree = clone(model.get("tree") || {});
  let openPicker = null; // {rowId, index}: the field list shown under a row's field box
  const root = h("div", { className: "ep-builder", "data-testid": "builder" });
  el.append(root);

  const schema = () => model.get("schema") || { fields: [], operators: [], datasets: [] };
  const fieldsByName = () => new Map(schema().fields.map((f) => [f.name, f]));
  const operatorsByName = () => new Map(schema().operators.map((o) => [o.name, o]));

  // --- sending edits ------------------------------------------------------------------------

  function commit() {
    model.set("tree", clone(tree));
    model.save_changes();
  }

  function edit(id, change) {
    const found = findNode(tree, id);
    if (!found) return;
    change(found.node, found.parent);
    commit();
  }

  // --- the header ---------------------------------------------------------------------------

  const datasetSelect = select("dataset", "Dataset", (e) => {
    const [scope, name] = e.target.value.split(":");
    model.set("scope", scope);
    model.set("dataset", name);
    model.save_changes();
  });
  const modeRows = h("button", { type: "button", "data-testid": "mode-rows", onclick: () => setMode("rows") }, "Rows");
  const modeText = h("button", { type: "button", "data-testid": "mode-text", onclick: () => setMode("text") }, "Text");
  const header = h(
    "div",
    { className: "ep-header" },
    h("div", { className: "ep-title" }, h("span", { className: "ep-logo" }, "{ }"), "Log-push filter"),
    h("label", { className: "ep-dataset-label" }, "Dataset", datasetSelect),
    h("div", { className: "ep-segmented ep-mode", role: "group", "aria-label": "Edit as" }, modeRows, modeText),
  );

  function setMode(mode) {
    model.set("mode", mode);
    model.save_changes();
  }

  function drawHeader() {
    const s = schema();
    datasetSelect.replaceChildren(
      ...["zone", "account"].map((scope) =>
        h(
          "optgroup",
          { label: scope === "zone" ? "Zone datasets" : "Account datasets" },
          s.datasets
            .filter((d) => d.scope === scope)
            .map((d) => h("option", { value: `${d.scope}:${d.name}` }, d.name)),
        ),
      ),
    );
    datasetSelect.value = `${model.get("scope")}:${model.get("dataset")}`;
    const mode = model.get("mode");
    modeRows.classList.toggle("ep-on", mode === "rows");
    modeText.classList.toggle("ep-on", mode === "text");
  }

  // --- the rows -----------------------------------------------------------------------------

  const editor = h("div", { className: "ep-editor", "data-testid": "editor" });

  function joinToggle(group) {
    const button = (join, label) =>
      h(
        "button",
        {
          type: "button",
          className: group.join === join ? "ep-on" : "",
          "data-testid": `join-${join}`,
          title: join === "and" ? "every condition holds (AND)" : "any condition holds (OR)",
          onclick: () => edit(group.id, (g) => (g.join = join)),
        },
        label,
      );
    return h("div", { className: "ep-segmented ep-join", role: "group" }, button("and", "AND"), button("or", "OR"));
  }

  function operatorOptions(row) {
    const info = fieldsByName().get(row.key);
    const ops = operatorsByName();
    const allowed = info ? info.operators : schema().operators.map((o) => o.name);
    const names = allowed.includes(row.operator) || !row.operator ? allowed : [row.operator, ...allowed];
    return names.map((name) => {
      const meaning = ops.get(name) ? ops.get(name).meaning : "unknown operator";
      const fits = allowed.includes(name);
      const full = fits ? `${name}  —  ${meaning}` : `${name}  —  not for ${info ? info.type : "this field"}`;
      return h("option", { value: name, className: fits ? "" : "ep-misfit", dataset: { full } }, full);
    });
  }

  function fieldPicker(row, rowEl) {
    const input = h("input", {
      type: "text",
      className: "ep-field",
      "data-testid": "field",
      placeholder: "Field",
      autocomplete: "off",
      spellcheck: "false",
      value: row.key,
      "aria-label": "Field",
    });
    const list = h("div", { className: "ep-picker", role: "listbox", "data-testid": "field-list" });
    const typeBadge = h("span", { className: "ep-type", "data-testid": "field-type" });

    // Every field until the person types (so that a chosen field can be replaced by any
    // other), then those whose name starts with or contains the text, then those of that type.
    function matches() {
      const q = openPicker && openPicker.filtering ? input.value.trim().toLowerCase() : "";
      const all = schema().fields;
      if (!q) return all;
      const starts = all.filter((f) => f.name.toLowerCase().startsWith(q));
      const inside = all.filter((f) => !f.name.toLowerCase().startsWith(q) && f.name.toLowerCase().includes(q));
      const byType = all.filter((f) => !f.name.toLowerCase().includes(q) && f.type.toLowerCase() === q);
      return [...starts, ...inside, ...byType];
    }

    function showType() {
      const info = fieldsByName().get(input.value);
      typeBadge.textContent = info ? info.type : input.value ? "not a field" : "";
      typeBadge.classList.toggle("ep-unknown", !info && !!input.value);
    }

    function drawList(opening = false) {
      if (!openPicker || openPicker.rowId !== row.id) {
        list.hidden = true;
        return;
      }
      const found = matches();
      const index = Math.min(openPicker.index, Math.max(found.length - 1, 0));
      openPicker.index = index;
      list.hidden = false;
      list.replaceChildren(
        ...(found.length
          ? found.slice(0, 200).map((f, i) =>
              h(
                "div",
                {
                  className: `ep-option${i === index ? " ep-active" : ""}${f.operators.length ? "" : " ep-disabled"}`,
                  role: "option",
                  "data-testid": "field-option",
                  "data-name": f.name,
                  onmousedown: (e) => {
                    e.preventDefault();
                    choose(f);
                  },
                },
                h("span", { className: "ep-option-name" }, f.name),
                h(
                  "span",
                  { className: "ep-option-type" },
                  f.operators.length ? f.type : f.type === "unknown" ? "no documented type" : `${f.type} · not filterable`,
                ),
              ),
            )
          : [h("div", { className: "ep-empty-list" }, "no field matches")]),
      );
      // Scrolls the list only (scrollIntoView would scroll the notebook too).
      const active = list.querySelector(".ep-active");
      if (!active) return;
      const top = active.offsetTop;
      const bottom = top + active.offsetHeight;
      if (opening) list.scrollTop = top - (list.clientHeight - active.offsetHeight) / 2;
      else if (top < list.scrollTop) list.scrollTop = top;
      else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
    }

    function choose(info) {
      input.value = info.name;
      openPicker = null;
      list.hidden = true;
      showType();
      edit(row.id, (r) => {
        r.key = info.name;
        if (info.operators.length && !info.operators.includes(r.operator)) {
          r.operator = info.operators[0];
          adjustValue(r);
        }
      });
      drawRows();
      const op = editor.querySelector(`[data-row="${row.id}"] [data-testid="operator"]`);
      if (op) op.focus();
    }

    input.addEventListener("focus", () => {
      const at = schema().fields.findIndex((f) => f.name === input.value);
      openPicker = { rowId: row.id, index: Math.max(at, 0), filtering: false };
      drawList(true);
    });
    input.addEventListener("blur", () => {
      openPicker = null;
      list.hidden = true;
    });
    input.addEventListener("input", () => {
      openPicker = { rowId: row.id, index: 0, filtering: true };
      drawList();
      showType();
      edit(row.id, (r) => (r.key = input.value));
      refreshOperators(rowEl, row);
    });
    input.addEventListener("keydown", (e) => {
      if (!openPicker) return;
      const found = matches();
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const step = e.key === "ArrowDown" ? 1 : -1;
        openPicker.index = (openPicker.index + step + found.length) % Math.max(found.length, 1);
        drawList();
      } else if (e.key === "Enter" && found.length) {
        e.preventDefault();
        choose(found[openPicker.index] || found[0]);
      } else if (e.key === "Escape") {
        openPicker = null;
        list.hidden = true;
      }
    });
    showType();
    list.hidden = true;
    return { element: h("div", { className: "ep-field-box" }, input, typeBadge, list), drawList };
  }

  // A value kept when the operator changes shape: one value <-> a list of values.
  function adjustValue(row) {
    const op = operatorsByName().get(row.operator);
    const takesSet = op ? op.takes_set : false;
    if (takesSet && !Array.isArray(row.value)) row.value = row.value === "" ? [] : [row.value];
    if (!takesSet && Array.isArray(row.value)) row.value = row.value.length ? row.value[0] : "";
  }

  function refreshOperators(rowEl, row) {
    const select = rowEl.querySelector('[data-testid="operator"]');
    const current = findNode(tree, row.id);
    if (!select || !current) return;
    const live = current.node;
    const info = fieldsByName().get(live.key);
    if (info && info.operators.length && !info.operators.includes(live.operator)) {
      live.operator = info.operators[0];
      adjustValue(live);
      commit();
      drawRows();
      return;
    }
    select.replaceChildren(...operatorOptions(live));
    select.value = live.operator;
    for (const option of select.options) option.textContent = option.selected ? option.value : option.dataset.full;
  }

  function valueEditor(row) {
    const info = fieldsByName().get(row.key);
    const kind = info ? info.kind : "text";
    const op = operatorsByName().get(row.operator);
    if (op && op.takes_set) {
      const values = Array.isArray(row.value) ? row.value : [row.value].filter((v) => v !== "");
      const entry = h("input", {
        type: "text",
        className: "ep-chip-input",
        "data-testid": "value-entry",
        placeholder: values.length ? "add…" : kind === "number" ? "integer, Enter to add" : "value, Enter to add",
        inputmode: kind === "number" ? "numeric" : undefined,
        "aria-label": "Add a value",
      });
      const add = () => {
        const parts = entry.value.split(/\r?\n/).filter((p) => p !== "");
        entry.value = "";
        if (!parts.length) return;
        edit(row.id, (r) => (r.value = [...(Array.isArray(r.value) ? r.value : []), ...parts]));
        drawRows();
        const again = editor.querySelector(`[data-row="${row.id}"] [data-testid="value-entry"]`);
        if (again) again.focus();
      };
      entry.addEventListener("keydown", (e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          add();
        } else if (e.key === "Backspace" && entry.value === "" && values.length) {
          edit(row.id, (r) => r.value.pop());
          drawRows();
          const again = editor.querySelector(`[data-row="${row.id}"] [data-testid="value-entry"]`);
          if (again) again.focus();
        }
      });
      entry.addEventListener("blur", () => {
        if (entry.value !== "") add();
      });
      return h(
        "div",
        { className: "ep-chips", "data-testid": "value-list", onclick: () => entry.focus() },
        values.map((v, i) =>
          h(
            "span",
            { className: "ep-chip", "data-testid": "value-chip" },
            v === "" ? "\u00a0" : v,
            h(
              "button",
              {
                type: "button",
                className: "ep-chip-remove",
                title: `remove ${v}`,
                "aria-label": `remove ${v}`,
                onclick: (e) => {
                  e.stopPropagation();
                  edit(row.id, (r) => r.value.splice(i, 1));
                  drawRows();
                },
              },
              icon(ICONS.close),
            ),
          ),
        ),
        entry,
      );
    }
    const text = Array.isArray(row.value) ? row.value.join(", ") : row.value;
    if (kind === "bool" && (text === "" || text === "true" || text === "false")) {
      return select(
        "value",
        "Value",
        (e) => edit(row.id, (r) => (r.value = e.target.value)),
        h("option", { value: "", disabled: true, selected: text === "" }, "choose…"),
        h("option", { value: "true", selected: text === "true" }, "true"),
        h("option", { value: "false", selected: text === "false" }, "false"),
      );
    }
    return h("input", {
      type: "text",
      className: "ep-value",
      "data-testid": "value",
      "aria-label": "Value",
      spellcheck: "false",
      value: text,
      placeholder: kind === "number" ? "integer" : "value",
      inputmode: kind === "number" ? "numeric" : undefined,
      oninput: (e) => edit(row.id, (r) => (r.value = e.target.value)),
    });
  }

  function rowElement(row) {
    const rowEl = h("div", { className: "ep-row", "data-testid": "row", "data-row": row.id });
    const picker = fieldPicker(row, rowEl);
    const operator = select(
      "operator",
      "Operator",
      () => {
        edit(row.id, (r) => {
          r.operator = operator.value;
          adjustValue(r);
        });
        drawRows();
      },
      operatorOptions(row),
    );
    operator.value = row.operator;
    // Closed, the select shows the operator's name; open, every operator with its meaning.
    const label = (full) => {
      for (const option of operator.options) option.textContent = full || !option.selected ? option.dataset.full : option.value;
    };
    operator.addEventListener("focus", () => label(true));
    operator.addEventListener("mousedown", () => label(true));
    operator.addEventListener("blur", () => label(false));
    label(false);
    const remove = h(
      "button",
      {
        type: "button",
        className: "ep-icon-button",
        "data-testid": "remove-row",
        title: "remove this condition",
        "aria-label": "remove this condition",
        onclick: () => {
          edit(row.id, (r, parent) => parent.items.splice(parent.items.indexOf(r), 1));
          drawRows();
        },
      },
      icon(ICONS.close),
    );
    rowEl.append(
      h("div", { className: "ep-row-main" }, picker.element, operator, valueEditor(row), remove),
      h("div", { className: "ep-row-problems", "data-testid": "row-problems" }),
    );
    picker.drawList();
    return rowEl;
  }

  function newRow() {
    return { id: newId("n"), key: "", operator: "eq", value: "" };
  }

  function groupElement(group, depth) {
    const items = group.items || [];
    const body = h("div", { className: "ep-items" });
    items.forEach((item, i) => {
      if (i > 0) body.append(h("div", { className: "ep-joiner" }, h("span", {}, group.join.toUpperCase())));
      body.append(item.items ? groupElement(item, depth + 1) : rowElement(item));
    });
    if (!items.length) {
      body.append(
        h(
          "div",
          { className: "ep-empty" },
          depth === 0 ? "No conditions: every log line is pushed. Add a condition to filter." : "An empty group.",
        ),
      );
    }
    const add = (item) => {
      edit(group.id, (g) => g.items.push(item));
      drawRows();
      const fields = editor.querySelectorAll(`[data-row="${item.items ? item.items[0].id : item.id}"] [data-testid="field"]`);
      if (fields.length) fields[0].focus();
    };
    const actions = h(
      "div",
      { className: "ep-actions" },
      h(
        "button",
        { type: "button", className: "ep-add", "data-testid": "add-row", onclick: () => add(newRow()) },
        icon(ICONS.plus),
        "Condition",
      ),
      h(
        "button",
        {
          type: "button",
          className: "ep-add",
          "data-testid": "add-group",
          onclick: () => add({ id: newId("g"), join: group.join === "and" ? "or" : "and", items: [newRow()] }),
        },
        icon(ICONS.plus),
        "Group",
      ),
      depth > 0
        ? h(
            "button",
            {
              type: "button",
              className: "ep-add ep-remove-group",
              "data-testid": "remove-group",
              onclick: () => {
                edit(group.id, (g, parent) => parent.items.splice(parent.items.indexOf(g), 1));
                drawRows();
              },
            },
            "Remove group",
          )
        : null,
    );
    return h(
      "div",
      { className: `ep-group ep-depth-${Math.min(depth, 3)}`, "data-testid": "group", "data-group": group.id },
      h(
        "div",
        { className: "ep-group-head" },
        h("span", { className: "ep-group-label" }, depth === 0 ? "Match" : "Group:"),
        joinToggle(group),
        h("span", { className: "ep-group-hint" }, group.join === "and" ? "all of these" : "any of these"),
        h("div", { className: "ep-group-problems", "data-testid": "group-problems" }),
      ),
      body,
      actions,
    );
  }

  const textArea = h("textarea", {
    className: "ep-text",
    "data-testid": "text",
    spellcheck: "false",
    rows: 6,
    placeholder: 'EdgeResponseStatus >= 500 and ClientRequestHost endsWith ".example.com"',
    oninput: (e) => {
      model.set("text", e.target.value);
      model.save_changes();
    },
  });

  function drawRows() {
    const focused = document.activeElement;
    const keep =
      focused && editor.contains(focused) && focused.closest("[data-row]")
        ? { row: focused.closest("[data-row]").dataset.row, testid: focused.dataset.testid, at: focused.selectionStart }
        : null;
    if (model.get("mode") === "text") {
      if (textArea.value !== model.get("text")) textArea.value = model.get("text");
      editor.replaceChildren(
        h(
          "div",
          { className: "ep-text-mode" },
          h(
            "div",
            { className: "ep-text-help" },
            "The text form (or JSON). ",
            h("code", {}, "and"),
            " binds tighter than ",
            h("code", {}, "or"),
            "; the rows come back when it reads as a filter.",
          ),
          textArea,
        ),
      );
    } else {
      editor.replaceChildren(groupElement(tree, 0));
    }
    if (keep && keep.testid) {
      const again = editor.querySelector(`[data-row="${keep.row}"] [data-testid="${keep.testid}"]`);
      if (again) {
        again.focus();
        if (typeof keep.at === "number" && again.setSelectionRange) again.setSelectionRange(keep.at, keep.at);
      }
    }
    drawProblemsInRows();
  }

  // --- the panel ----------------------------------------------------------------------------

  const panel = h("div", { className: "ep-panel" });

  function copyButton(getText, label) {
    const button = h(
      "button",
      {
        type: "button",
        className: "ep-copy",
        title: `copy the ${label}`,
        onclick: async () => {
          try {
            await navigator.clipboard.writeText(getText());
            button.lastChild.textContent = "copied";
          } catch (err) {
            button.lastChild.textContent = "select and copy";
          }
          setTimeout(() => (button.lastChild.textContent = "copy"), 1500);
        },
      },
      icon(ICONS.copy),
      h("span", {}, "copy"),
    );
    return button;
  }

  function meter(label, used, limit, unit, testid) {
    const share = used === null || used === undefined ? 0 : Math.min(used / limit, 1);
    const over = used !== null && used !== undefined && used > limit;
    return h(
      "div",
      { className: `ep-meter${over ? " ep-over" : share > 0.8 ? " ep-near" : ""}`, "data-testid": testid },
      h(
        "div",
        { className: "ep-meter-label" },
        h("span", {}, label),
        h("span", { className: "ep-meter-value" }, `${formatCount(used)} / ${formatCount(limit)}${unit}`),
      ),
      h("div", { className: "ep-bar" }, h("div", { className: "ep-fill", style: `width: ${(share * 100).toFixed(1)}%` })),
    );
  }

  function drawPanel() {
    const report = model.get("report") || {};
    const problems = report.problems || [];
    const s = schema();
    let status;
    if (!report.parsed) status = h("div", { className: "ep-status ep-bad", "data-testid": "status" }, "Not a filter yet", h("small", {}, `${problems.length} to fix`));
    else if (report.empty) status = h("div", { className: "ep-status ep-neutral", "data-testid": "status" }, "No filter", h("small", {}, "every line is pushed"));
    else if (report.valid) status = h("div", { className: "ep-status ep-good", "data-testid": "status" }, "Valid", h("small", {}, `for ${s.dataset}`));
    else status = h("div", { className: "ep-status ep-bad", "data-testid": "status" }, report.problem_count, h("small", {}, `for ${s.dataset}`));

    const section = (title, ...children) => h("section", { className: "ep-section" }, h("h4", {}, title), ...children);
    const parts = [
      h(
        "div",
        { className: "ep-summary" },
        status,
        meter("Operators", report.operator_count, report.max_operators, "", "operators"),
        meter("Size", report.byte_size, report.max_bytes, " B", "bytes"),
      ),
    ];
    if (problems.length) {
      parts.push(
        section(
          "Problems",
          h(
            "ul",
            { className: "ep-problems", "data-testid": "problems" },
            problems.map((p) =>
              h(
                "li",
                { "data-code": p.code },
                h("span", { className: "ep-problem-path" }, p.path || "filter"),
                h("span", { className: "ep-problem-message" }, p.message),
                h("span", { className: "ep-problem-code" }, p.code),
              ),
            ),
          ),
        ),
      );
    }
    if (report.text !== null && report.text !== undefined) {
      parts.push(
        section(
          "Text form",
          h("div", { className: "ep-code-box" }, h("pre", { className: "ep-code", "data-testid": "text-form" }, report.text), copyButton(() => report.text, "text form")),
        ),
        section(
          "Canonical JSON  ·  the job's filter",
          h("div", { className: "ep-code-box" }, h("pre", { className: "ep-code ep-json", "data-testid": "json" }, report.json), copyButton(() => report.json, "JSON")),
        ),
      );
    }
    parts.push(sampleSection());
    panel.replaceChildren(...parts.filter(Boolean));
    drawProblemsInRows();
  }

  function sampleSection() {
    const sample = model.get("sample_report") || {};
    if (!sample.status || sample.status === "off") return null;
    const body = [];
    const busy = sample.status === "waiting" || sample.status === "scanning";
    const head = h(
      "div",
      { className: "ep-sample-source" },
      h("span", { className: "ep-sample-path", title: sample.sample }, sample.sample),
      busy
        ? h(
            "span",
            { className: "ep-spinner", "data-testid": "sample-busy" },
            sample.status === "scanning"
              ? `scanning… ${sample.read_lines ? `${formatCount(sample.read_lines)} lines` : ""}`
              : "waiting…",
          )
        : null,
    );
    body.push(head);
    if (sample.status === "invalid") body.push(h("div", { className: "ep-note" }, "Fix the problems to see what the filter keeps."));
    if (sample.status === "empty") body.push(h("div", { className: "ep-note" }, "No filter: every line is kept."));
    if (sample.status === "error") body.push(h("div", { className: "ep-note ep-bad-text" }, sample.error));
    if (sample.total !== undefined && sample.total !== null && sample.status !== "invalid" && sample.status !== "empty") {
      const shown = sample.shown || {};
      body.push(
        h(
          "div",
          { className: `ep-keeps${sample.stale ? " ep-stale" : ""}`, "data-testid": "sample" },
          h(
            "div",
            { className: "ep-big" },
            h("span", { className: "ep-big-number", "data-testid": "sample-share" }, shownText(shown.line_share)),
            h("span", { className: "ep-big-label" }, "of lines kept"),
          ),
          h(
            "div",
            { className: "ep-keeps-detail", "data-testid": "sample-counts" },
            `${formatCount(sample.matched)} of ${formatCount(sample.total)} lines · ${shownText(shown.matched_bytes)} of ${shownText(shown.bytes)} (${shownText(shown.byte_share)})`,
          ),
          h("div", { className: "ep-bar ep-keep-bar" }, h("div", { className: "ep-fill", style: `width: ${((sample.line_share || 0) * 100).toFixed(1)}%` })),
          sample.malformed ? h("div", { className: "ep-note" }, `${shown.malformed} not evaluated`) : null,
          sample.lines && sample.lines.length
            ? h(
                "details",
                { className: "ep-lines" },
                h("summary", {}, `first ${shown.lines}`),
                h("pre", { className: "ep-code" }, sample.lines.join("\n")),
              )
            : null,
        ),
      );
    }
    if (sample.status !== "invalid" && sample.status !== "empty" && sample.status !== "error") body.push(breakdownPart(sample));
    return h("section", { className: "ep-section ep-sample-section" }, h("h4", {}, "On the sample"), ...body);
  }

  // The sample's counts by the values of a chosen field (Filter.scan's group_by).
  function breakdownPart(sample) {
    const chosen = model.get("breakdown") || "";
    const picker = select(
      "breakdown-field",
      "Break down by",
      (e) => {
        model.set("breakdown", e.target.value);
        model.save_changes();
      },
      h("option", { value: "" }, "no field"),
      schema().fields.map((f) => h("option", { value: f.name, selected: f.name === chosen }, f.name)),
    );
    picker.value = chosen;
    const parts = [h("label", { className: "ep-breakdown-label" }, "Break down by", picker)];
    const breakdown = sample.breakdown;
    const rows = (sample.shown && sample.shown.groups) || [];
    if (chosen && breakdown && breakdown.groups && !sample.stale) {
      // The rows as Python made them (`_breakdown.rows`): the groups listed, then the rest
      // row, labelled as the text tables label it, `(other: 2 groups)`.
      const row = (r) =>
        h(
          "tr",
          { "data-testid": r.rest ? "breakdown-other" : "breakdown-group" },
          h("td", { className: "ep-group-key", title: r.label }, r.label),
          h("td", { className: "ep-num" }, r.kept),
          h(
            "td",
            { className: "ep-share" },
            h("div", { className: "ep-bar ep-keep-bar" }, h("div", { className: "ep-fill", style: `width: ${((r.line_share || 0) * 100).toFixed(1)}%` })),
            h("span", {}, shownText(r.share)),
          ),
        );
      parts.push(
        h(
          "table",
          { className: "ep-breakdown", "data-testid": "breakdown" },
          h("thead", {}, h("tr", {}, h("th", {}, chosen), h("th", { className: "ep-num" }, "kept / lines"), h("th", {}, "share kept"))),
          h("tbody", {}, rows.map(row)),
        ),
      );
    }
    return h("div", { className: "ep-breakdown-box" }, ...parts);
  }

  function drawProblemsInRows() {
    const report = model.get("report") || {};
    const byNode = new Map();
    for (const p of report.problems || []) {
      if (!p.node) continue;
      if (!byNode.has(p.node)) byNode.set(p.node, []);
      byNode.get(p.node).push(p);
    }
    for (const rowEl of editor.querySelectorAll("[data-row]")) {
      const found = byNode.get(rowEl.dataset.row) || [];
      rowEl.classList.toggle("ep-invalid", found.length > 0);
      const box = rowEl.querySelector('[data-testid="row-problems"]');
      box.replaceChildren(...found.map((p) => h("div", { className: "ep-row-problem", "data-code": p.code }, p.message)));
    }
    for (const groupEl of editor.querySelectorAll("[data-group]")) {
      const found = byNode.get(groupEl.dataset.group) || [];
      const box = groupEl.querySelector('[data-testid="group-problems"]');
      if (box) box.replaceChildren(...found.filter((p) => !p.path.endsWith("]")).map((p) => h("div", { className: "ep-row-problem" }, p.message)));
    }
  }

  root.append(header, h("div", { className: "ep-body" }, editor, panel));

  // --- from the model -----------------------------------------------------------------------

  const onTree = () => {
    const incoming = model.get("tree") || {};
    if (JSON.stringify(incoming) === JSON.stringify(tree)) return;
    tree = clone(incoming);
    drawRows();
  };
  const onSchema = () => {
    drawHeader();
    drawRows();
  };
  const onMode = () => {
    drawHeader();
    tree = clone(model.get("tree") || {});
    drawRows();
  };
  const onText = () => {
    if (model.get("mode") === "text" && document.activeElement !== textArea) textArea.value = model.get("text");
  };
  const listeners = [
    ["change:tree", onTree],
    ["change:schema", onSchema],
    ["change:dataset", drawHeader],
    ["change:scope", drawHeader],
    ["change:mode", onMode],
    ["change:text", onText],
    ["change:report", drawPanel],
    ["change:sample_report", drawPanel],
    ["change:breakdown", drawPanel],
  ];
  for (const [event, callback] of listeners) model.on(event, callback);
  drawHeader();
  drawRows();
  drawPanel();

  return () => {
    for (const [event, callback] of listeners) model.off(event, callback);
  };
}

export default { render };
