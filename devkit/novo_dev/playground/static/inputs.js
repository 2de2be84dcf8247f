// A modal's input blocks as Slack's client shows them, and what they hold.
//
// `values()` is `view.state.values` in Slack's shape ({block_id: {action_id:
// {value | selected_option | selected_options | …}}}); the server looks each
// picked option up in the view again before anything is signed. Like Slack's
// client, a required input left empty is refused here and never submitted;
// every other check is the bridge's, shown where it says (`errors`).

import { h } from "./dom.js";
import { plainText, textHtml } from "./mrkdwn.js";
import { unsupported } from "./blocks.js";

export const REQUIRED = "Please complete this required field.";
const TYPE_AHEAD_DELAY_MS = 200;

export function createForm(ctx) {
  const state = {};
  const blocks = new Map();

  function set(blockId, actionId, entry) {
    state[blockId] = { [actionId]: entry };
  }

  function inputBlock(block) {
    const el = block.element || {};
    const id = block.block_id;
    const field = widget(block, el, (entry) => set(id, el.action_id, entry), ctx);
    const error = h("div", { class: "input-error", role: "alert", hidden: true });
    const label = h("label", { class: "input-label", for: `in-${id}` },
      plainText(block.label), block.optional ? h("span", { class: "optional" }, " (optional)") : null);
    const node = h("div", { class: "block block-input", dataset: { blockId: id } },
      label, field.node,
      block.hint ? h("div", { class: "hint", html: textHtml(block.hint, ctx) }) : null,
      error);
    blocks.set(id, { block, error, node });
    set(id, el.action_id, field.initial);
    return node;
  }

  function showErrors(errors) {
    for (const [id, entry] of blocks) {
      const text = errors[id];
      entry.error.hidden = !text;
      entry.error.textContent = text || "";
      entry.node.classList.toggle("has-error", Boolean(text));
    }
  }

  // Slack's client refuses to submit a required input left empty: so does the page.
  function requiredErrors() {
    const errors = {};
    for (const [id, { block }] of blocks) {
      if (block.optional) continue;
      const entry = Object.values(state[id] || {})[0] || {};
      if (isEmpty(entry)) errors[id] = REQUIRED;
    }
    return errors;
  }

  return { inputBlock, showErrors, requiredErrors, values: () => structuredClone(state) };
}

function isEmpty(entry) {
  const filled = Object.values(entry);
  return !filled.length || filled.every((v) => v === null || v === "" || (Array.isArray(v) && !v.length));
}

function widget(block, el, update, ctx) {
  const id = `in-${block.block_id}`;
  switch (el.type) {
    case "plain_text_input":
    case "email_text_input":
    case "url_text_input":
    case "number_input":
      return textInput(id, el, update);
    case "radio_buttons":
    case "checkboxes":
      return choices(id, el, update, ctx);
    case "static_select":
      return staticSelect(id, el, update);
    case "multi_static_select":
      return multiStatic(id, el, update);
    case "external_select":
    case "multi_external_select":
      return typeAhead(id, block, el, update, ctx);
    case "datepicker":
      return simple(id, el, "date", "selected_date", el.initial_date, update);
    case "timepicker":
      return simple(id, el, "time", "selected_time", el.initial_time, update);
    case "users_select":
      return usersSelect(id, el, update, ctx);
    default:
      return { node: unsupported(`${el.type} input`), initial: {} };
  }
}

function textInput(id, el, update) {
  const multiline = el.type === "plain_text_input" && el.multiline;
  const type = { email_text_input: "email", url_text_input: "url", number_input: "number" }[el.type] || "text";
  const input = multiline ? h("textarea", { rows: 4 }) : h("input", { type });
  Object.assign(input, { id, placeholder: plainText(el.placeholder) });
  if (el.max_length) input.maxLength = el.max_length;
  input.value = el.initial_value ?? "";
  const read = () => ({ value: input.value === "" ? null : input.value });
  input.addEventListener("input", () => update(read()));
  return { node: input, initial: read() };
}

function simple(id, el, type, key, initial, update) {
  const input = h("input", { id, type });
  input.value = initial ?? "";
  const read = () => ({ [key]: input.value || null });
  input.addEventListener("input", () => update(read()));
  return { node: input, initial: read() };
}

function optionsOf(el) {
  return [...(el.options || []), ...(el.option_groups || []).flatMap((g) => g.options || [])];
}

function choices(id, el, update, ctx) {
  const multiple = el.type === "checkboxes";
  const picked = new Set((multiple ? el.initial_options || [] : [el.initial_option].filter(Boolean)).map((o) => o.value));
  const byValue = new Map(optionsOf(el).map((o) => [o.value, o]));
  const read = () => {
    const chosen = [...picked].map((v) => byValue.get(v));
    return multiple ? { selected_options: chosen } : { selected_option: chosen[0] || null };
  };
  const list = h("div", { class: "choices", id, role: multiple ? "group" : "radiogroup" });
  for (const option of el.options || []) {
    const box = h("input", {
      type: multiple ? "checkbox" : "radio",
      name: id,
      value: option.value,
      checked: picked.has(option.value),
      onchange: (event) => {
        if (!multiple) picked.clear();
        if (event.target.checked) picked.add(option.value);
        else picked.delete(option.value);
        update(read());
      },
    });
    list.append(h("label", { class: "choice" }, box,
      h("span", { class: "choice-text" },
        h("span", { html: textHtml(option.text, ctx) }),
        option.description ? h("span", { class: "choice-description", html: textHtml(option.description, ctx) }) : null)));
  }
  return { node: list, initial: read() };
}

function nativeSelect(id, el, placeholder) {
  const select = h("select", { id }, h("option", { value: "" }, placeholder));
  const add = (parent, option) => parent.append(h("option", { value: option.value }, plainText(option.text)));
  for (const option of el.options || []) add(select, option);
  for (const group of el.option_groups || []) {
    const node = h("optgroup", { label: plainText(group.label) });
    (group.options || []).forEach((o) => add(node, o));
    select.append(node);
  }
  return select;
}

function staticSelect(id, el, update) {
  const select = nativeSelect(id, el, plainText(el.placeholder) || "Select an option");
  const byValue = new Map(optionsOf(el).map((o) => [o.value, o]));
  select.value = el.initial_option?.value ?? "";
  const read = () => ({ selected_option: byValue.get(select.value) || null });
  select.addEventListener("change", () => update(read()));
  return { node: select, initial: read() };
}

// Chips for what is picked, and a way to pick more: Slack's multi-select, without the popover.
function chipsField(max, update, initial) {
  const picked = [...(initial || [])];
  const chips = h("div", { class: "chips" });
  const read = () => ({ selected_options: picked.map((o) => ({ text: o.text, value: o.value })) });
  const redraw = () => {
    chips.replaceChildren(...picked.map((option) => h("span", { class: "chip", dataset: { value: option.value } },
      plainText(option.text),
      h("button", {
        type: "button",
        class: "chip-remove",
        "aria-label": `Remove ${plainText(option.text)}`,
        onclick: () => {
          picked.splice(picked.findIndex((o) => o.value === option.value), 1);
          redraw();
          update(read());
        },
      }, "×"))));
  };
  const add = (option) => {
    if (!option || picked.some((o) => o.value === option.value)) return;
    if (max && picked.length >= max) return;
    picked.push(option);
    redraw();
    update(read());
  };
  redraw();
  return { chips, add, read };
}

function multiStatic(id, el, update) {
  const field = chipsField(el.max_selected_items, update, el.initial_options);
  const byValue = new Map(optionsOf(el).map((o) => [o.value, o]));
  const select = nativeSelect(id, el, plainText(el.placeholder) || "Add an option…");
  select.addEventListener("change", () => {
    field.add(byValue.get(select.value));
    select.value = "";
  });
  return { node: h("div", { class: "multi" }, field.chips, select), initial: field.read() };
}

// external_select / multi_external_select: options come from the bridge as the person types.
function typeAhead(id, block, el, update, ctx) {
  const multiple = el.type === "multi_external_select";
  const minimum = el.min_query_length ?? 3;
  const input = h("input", { id, type: "text", autocomplete: "off", placeholder: plainText(el.placeholder) || "Type to search…" });
  const list = h("ul", { class: "suggestions", role: "listbox", hidden: true });
  const field = multiple ? chipsField(el.max_selected_items, update, el.initial_options) : null;
  let chosen = el.initial_option || null;
  if (chosen) input.value = plainText(chosen.text);
  const read = () => (multiple ? field.read() : { selected_option: chosen ? { text: chosen.text, value: chosen.value } : null });
  let timer = null;
  let asked = 0;
  const search = () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const query = input.value;
      if (query.length < minimum) {
        list.hidden = true;
        return;
      }
      const ticket = ++asked;
      const found = await ctx.loadOptions(block.block_id, el.action_id, query);
      if (ticket !== asked) return; // a later keystroke asked again
      show(found);
    }, TYPE_AHEAD_DELAY_MS);
  };
  const show = (found) => {
    const options = [...(found?.options || []), ...(found?.option_groups || []).flatMap((g) => g.options || [])];
    list.replaceChildren(...(options.length ? options.map((option) => h("li", {
      role: "option",
      class: "suggestion",
      dataset: { value: option.value },
      onmousedown: (event) => {
        event.preventDefault();
        list.hidden = true;
        if (multiple) {
          field.add(option);
          input.value = "";
        } else {
          chosen = option;
          input.value = plainText(option.text);
          update(read());
        }
      },
    }, plainText(option.text))) : [h("li", { class: "suggestion none" }, "No matches")]));
    list.hidden = false;
    // In the flow of the form, so the modal's own scroll reaches it: never cut at its edge.
    list.scrollIntoView({ block: "nearest" });
  };
  input.addEventListener("input", () => {
    if (!multiple && chosen) {
      chosen = null;
      update(read());
    }
    search();
  });
  input.addEventListener("focus", search);
  input.addEventListener("blur", () => { list.hidden = true; });
  const node = h("div", { class: "typeahead" }, multiple ? field.chips : null, input, list);
  return { node, initial: read() };
}

function usersSelect(id, el, update, ctx) {
  const select = h("select", { id }, h("option", { value: "" }, plainText(el.placeholder) || "Select a person"),
    [...ctx.users.values()].map((u) => h("option", { value: u.id }, u.display_name || u.name)));
  select.value = el.initial_user || "";
  const read = () => ({ selected_user: select.value || null });
  select.addEventListener("change", () => update(read()));
  return { node: select, initial: read() };
}
