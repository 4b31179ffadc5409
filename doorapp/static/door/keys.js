// The door screen's keyboard shortcuts, all of them, in one table: typing anywhere searches, the arrows move
// the selection, Enter checks in (an arrival who stepped out: back in; door/actions.js act()), Escape
// clears. Keys pressed with Ctrl, Alt or Meta, while a dialog is open or in another field of the page are
// left to the browser.

const anywhere = () => true;
const outsideSearch = ({ inSearch }) => !inSearch;
// a focused button handles its Enter
const notOnAControl = ({ inSearch, target }) => inSearch || !target.closest?.("button, a");

function typeInSearch(door, value) {
  door.search.focus();
  door.search.value = value;
  door.flushSearch();
}

// [key, where it works, what it does, whether the browser's own action is kept]. "a character" is any one
// printable character but a space.
export const SHORTCUTS = [
  ["ArrowDown", anywhere, (door) => door.move(1)],
  ["ArrowUp", anywhere, (door) => door.move(-1)],
  ["Enter", notOnAControl, (door) => door.enter()],
  ["Escape", anywhere, (door) => typeInSearch(door, ""), "keep"],
  ["a character", outsideSearch, (door, key) => typeInSearch(door, door.search.value + key)],
  ["Backspace", outsideSearch, (door) => typeInSearch(door, door.search.value.slice(0, -1))],
];

const isCharacter = (key) => key.length === 1 && key !== " ";

// Whether a key press is left to the browser: with Ctrl, Alt or Meta, while a dialog is open, or in another
// field of the page.
function leftToTheBrowser(event, inSearch) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return true;
  if (document.querySelector("dialog[open]")) return true;
  return !inSearch && Boolean(event.target.closest?.("input, textarea, select, [contenteditable]"));
}

// The keydown listener of one door screen.
export function keyHandler(door) {
  return (event) => {
    const target = event.target;
    const inSearch = target === door.search;
    if (leftToTheBrowser(event, inSearch)) return;
    const shortcut = SHORTCUTS.find(
      ([key]) => key === event.key || (key === "a character" && isCharacter(event.key)),
    );
    if (!shortcut) return;
    const [, applies, run, keep] = shortcut;
    if (!applies({ inSearch, target })) return;
    if (!keep) event.preventDefault();
    run(door, event.key);
  };
}
