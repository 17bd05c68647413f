// Monkey Palace's colours, shared by the 3-D view, the view from above (no WebGL) and the panels.

export const SEAT_COLOURS = ["#d7263d", "#1b6fd1", "#f29e1f", "#8e44ad"];
export const NEUTRAL = "#6f6a60";
// Knob kinds of geometry.Knob: ground light, dark, gold, white, blocked, corner.
export const GROUND = ["#9bd56f", "#3f8e3c", "#e8bd3f", "#f6f5ef", "#5a4a3f", "#5d6f78"];
export const BRICK = "#e9dcc0", COLUMN = "#c98b5a", ARCH = "#d9c08e";
export const DECO = { light: "#8fe05a", dark: "#2f8a34", gold: "#e6b422" };
export const HEADING = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };
