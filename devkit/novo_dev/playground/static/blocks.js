// Block Kit as a person sees it in Slack: layout blocks and the elements they hold.
//
// `ctx.act(block, element, extra)` is called when a person clicks a button or
// picks from an overflow; inputs (modals only) are built by inputs.js and
// registered through `ctx.input`. Whatever this file does not know is shown
// as a placeholder naming it, never dropped silently.

import { h } from "./dom.js";
import { plainText, textHtml } from "./mrkdwn.js";

export function renderBlocks(blocks, ctx) {
  return (blocks || []).map((block) => renderBlock(block, ctx));
}

function renderBlock(block, ctx) {
  const attrs = { class: `block block-${block.type}`, dataset: { blockId: block.block_id || "" } };
  switch (block.type) {
    case "header":
      return h("div", attrs, h("h3", { html: textHtml(block.text, ctx) }));
    case "divider":
      return h("hr", attrs);
    case "section":
      return h("div", attrs, section(block, ctx));
    case "context":
      return h("div", attrs, (block.elements || []).map((e) => contextElement(e, ctx)));
    case "actions":
      return h("div", attrs, (block.elements || []).map((e) => element(block, e, ctx)));
    case "image":
      return h("div", attrs, imagePlaceholder(block, true), block.title ? h("div", { class: "caption", html: textHtml(block.title, ctx) }) : null);
    case "input":
      return ctx.input ? ctx.input(block) : h("div", attrs, unsupported("input outside a modal"));
    case "rich_text":
      return h("div", attrs, richText(block.elements || [], ctx));
    default:
      return h("div", attrs, unsupported(`${block.type} block`));
  }
}

function section(block, ctx) {
  const body = h("div", { class: "section-body" });
  if (block.text) body.append(h("div", { class: "section-text", html: textHtml(block.text, ctx) }));
  if (block.fields) {
    body.append(h("div", { class: "fields" }, block.fields.map((f) => h("div", { class: "field", html: textHtml(f, ctx) }))));
  }
  const accessory = block.accessory ? h("div", { class: "accessory" }, element(block, block.accessory, ctx)) : null;
  return [body, accessory];
}

function contextElement(item, ctx) {
  if (item.type === "image") return imagePlaceholder(item, false);
  return h("span", { class: "context-item", html: textHtml(item, ctx) });
}

function imagePlaceholder(image, large) {
  const alt = image.alt_text || "image";
  return h("span", { class: large ? "image-placeholder large" : "image-placeholder", title: image.image_url || "", role: "img", "aria-label": alt }, large ? `🖼 ${alt}` : "🖼");
}

export function unsupported(what) {
  return h("span", { class: "unsupported", title: "The playground does not show this yet" }, `[${what}]`);
}

// One interactive element of a message or a modal's section/actions block.
export function element(block, el, ctx) {
  switch (el.type) {
    case "button":
      return button(block, el, ctx);
    case "overflow":
      return overflow(block, el, ctx);
    case "image":
      return imagePlaceholder(el, false);
    default:
      return h("span", { class: "element-disabled", title: "Only buttons and menus can be used outside a form here" },
        plainText(el.placeholder) || el.type);
  }
}

function button(block, el, ctx) {
  const style = el.style ? ` ${el.style}` : "";
  return h("button", {
    type: "button",
    class: `btn${style}`,
    dataset: { actionId: el.action_id, value: el.value ?? "" },
    onclick: async (event) => {
      const target = event.currentTarget;
      if (el.url) window.open(el.url, "_blank", "noopener");
      if (el.confirm && !(await ctx.confirm(el.confirm))) return;
      target.disabled = true;
      try {
        await ctx.act(block, el, {});
      } finally {
        target.disabled = false;
      }
    },
  }, plainText(el.text));
}

function overflow(block, el, ctx) {
  const menu = h("div", { class: "menu", role: "menu", hidden: true });
  const toggle = h("button", {
    type: "button",
    class: "btn overflow",
    "aria-label": "More actions",
    dataset: { actionId: el.action_id },
    onclick: (event) => {
      event.stopPropagation();
      const opening = menu.hidden;
      document.querySelectorAll(".menu").forEach((m) => { m.hidden = true; });
      menu.hidden = !opening;
    },
  }, "⋮");
  for (const option of el.options || []) {
    menu.append(h("button", {
      type: "button",
      class: "menu-item",
      role: "menuitem",
      dataset: { value: option.value },
      onclick: async () => {
        menu.hidden = true;
        if (el.confirm && !(await ctx.confirm(el.confirm))) return;
        await ctx.act(block, el, { option: option.value });
      },
    }, plainText(option.text)));
  }
  return h("span", { class: "overflow-wrap" }, toggle, menu);
}

function richText(elements, ctx) {
  return elements.map((part) => {
    const inner = (part.elements || []).map((leaf) => {
      if (leaf.type === "user") return h("span", { class: "mention" }, `@${ctx.users.get(leaf.user_id)?.display_name || leaf.user_id}`);
      if (leaf.type === "link") return h("a", { href: leaf.url, target: "_blank", rel: "noopener noreferrer" }, leaf.text || leaf.url);
      if (leaf.type === "emoji") return leaf.unicode ? String.fromCodePoint(...leaf.unicode.split("-").map((c) => parseInt(c, 16))) : `:${leaf.name}:`;
      if (leaf.type === "text") return h(leaf.style?.code ? "code" : "span", { class: leaf.style?.bold ? "rt-bold" : null }, leaf.text);
      return Array.isArray(leaf.elements) ? richText([leaf], ctx) : unsupported(leaf.type);
    });
    const tag = { rich_text_preformatted: "pre", rich_text_quote: "blockquote" }[part.type] || "div";
    return h(tag, {}, inner);
  });
}
