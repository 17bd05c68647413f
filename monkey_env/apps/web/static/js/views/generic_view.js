// The generic view of a game without a view of its own (apps/web/generic_web.py): the position as
// the game's text; the person's legal actions are the decision box's buttons (play.js).

import { el } from "/static/js/common.js";

export class BoardView {
  constructor(container, { onAction = null } = {}) {
    this.container = container;
    this.onAction = onAction;
  }

  /** Draw a state: its text, as the seat the page belongs to sees it. */
  render(state) {
    this.container.replaceChildren(el("pre", { class: "generic-text", "data-game": state.game }, state.text));
  }
}
