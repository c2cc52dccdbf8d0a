// tabmcp page agent: view, what a screenshot of this frame shows: the viewport and scroll position, an
// element's ref, role and name, and (on request) the interactive elements on screen with their
// snapshot refs and rectangles, which the server draws on the image (set-of-marks). Reads only: the
// page is never changed to draw the marks.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    NAME_MAX, DOC_ID, cut, refFor, elementForRef, composedContains, deepElementFromPoint, MARKED_SELECTOR, roleOf,
    accName, failure, AgentError,
  } = shared;

  // More would only clutter the image; the server lists fewer still.
  const MAX_MARKS = 300;
  // Snapshot rows that place things rather than being something to act on.
  const UNMARKED_ROLES = new Set(['heading', 'iframe']);
  // A list box's options: the select is the control (interact select), and their labels would
  // cover it.
  const UNMARKED_TAGS = new Set(['option', 'optgroup']);

  /**
   * arg: {marks?, within?, target?}. Rectangles are CSS px relative to this frame's viewport; an
   * element is marked when it renders with a size inside `within` (a rectangle in CSS px of the
   * document, as a full-page shot or an element's spans it; the viewport by default) and, where it is in the viewport, the point at the middle of its visible part hits it
   * (not a dialog or overlay drawn over it).
   */
  function view(arg) {
    try {
      if (arg !== undefined && arg !== null && typeof arg !== 'object') {
        throw new AgentError('BAD_MESSAGE', 'view takes {marks?, within?, target?}');
      }
      const answer = {
        ok: true,
        url: location.href,
        title: document.title,
        docId: DOC_ID,
        dpr: window.devicePixelRatio || 1,
        scroll: { x: window.scrollX, y: window.scrollY },
        viewport: { width: window.innerWidth, height: window.innerHeight },
      };
      if (arg && arg.target) answer.element = describe(shared.resolveTarget(arg.target));
      if (arg && arg.marks) Object.assign(answer, marksWithin(areaOf(arg.within)));
      return answer;
    } catch (e) {
      return failure(e);
    }
  }

  function describe(el) {
    const role = roleOf(el, el.localName, el.matches(MARKED_SELECTOR));
    return { ref: refFor(el), role: role || 'generic', name: cut(accName(el, role, false), NAME_MAX) };
  }

  function areaOf(within) {
    if (within === undefined || within === null) {
      return { left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight };
    }
    const { x, y, width, height } = within;
    if (![x, y, width, height].every(Number.isFinite)) {
      throw new AgentError('BAD_MESSAGE', 'within needs finite x, y, width and height');
    }
    const left = x - window.scrollX;
    const top = y - window.scrollY;
    return { left, top, right: left + width, bottom: top + height };
  }

  /** The interactive rows of an interactive snapshot (same refs, roles and names) whose rectangles
   * meet the area; total counts them all, marks holds the first MAX_MARKS. */
  function marksWithin(area) {
    const rows = shared.snapshot({ mode: 'interactive' }).nodes;
    const marks = [];
    let total = 0;
    for (const row of rows) {
      if (UNMARKED_ROLES.has(row.role)) continue;
      const el = elementForRef(row.ref);
      if (!el || UNMARKED_TAGS.has(el.localName)) continue;
      const box = el.getBoundingClientRect();
      if (!(box.width > 0 && box.height > 0)) continue;
      if (box.right <= area.left || box.left >= area.right || box.bottom <= area.top || box.top >= area.bottom) continue;
      if (covered(el, box)) continue;
      total += 1;
      if (marks.length < MAX_MARKS) {
        marks.push({ ref: row.ref, role: row.role, name: row.name, x: box.x, y: box.y, width: box.width, height: box.height });
      }
    }
    return { marks, total };
  }

  /** Whether something else is on top at the middle of the element's part in the viewport. */
  function covered(el, box) {
    const left = Math.max(0, box.left);
    const top = Math.max(0, box.top);
    const right = Math.min(window.innerWidth, box.right);
    const bottom = Math.min(window.innerHeight, box.bottom);
    if (right <= left || bottom <= top) return false; // off screen: a full-page shot still shows it
    const hit = deepElementFromPoint((left + right) / 2, (top + bottom) / 2);
    if (!hit || composedContains(el, hit) || composedContains(hit, el)) return false;
    return !(hit.localName === 'label' && hit.control === el);
  }

  Object.assign(shared, { view });
})();
