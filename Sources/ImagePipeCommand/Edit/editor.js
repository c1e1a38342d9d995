// The editor page's script. It holds no geometry of its own: every settled state, limit,
// circle, window and angle comes from the server (EditModel.swift); the script turns pointer,
// wheel and key input into a raw state, sends it, and animates toward the answer. It also
// exposes `window.imagepipe`, the automation hook the editor's documentation describes.
"use strict";
(() => {
  const BOUNCE_SECONDS = 0.3;           // seed 000's and 003's spring-back
  const WHEEL_SETTLE_MS = 180;          // a wheel gesture has no end event: settle after a pause
  const KEY_PAN = 10, KEY_PAN_FAST = 50, KEY_ZOOM = 1.1, KEY_TURN_PAN = 20;

  const editor = document.getElementById("editor");
  const view = document.getElementById("view");
  const picture = document.getElementById("picture");
  const overlay = document.getElementById("overlay");
  const mask = document.getElementById("mask");
  const ring = document.getElementById("ring");
  const frame = document.getElementById("frame");
  const caption = document.getElementById("caption");
  const status = document.getElementById("status");
  const help = document.getElementById("help");
  const buttons = { ok: document.getElementById("ok"), cancel: document.getElementById("cancel"), turn: document.getElementById("turn") };

  let session = null;        // what the server said about the photo and the mode
  let answer = null;         // the server's last settled answer
  let state = null;          // the state shown: raw during a gesture, settled after
  let shown = null;          // the picture's rectangle and the pan on screen now
  let animation = null;      // {from, to, start}
  let pending = 0;           // requests and timers that will change the state
  let generation = 0;        // answers to superseded requests are dropped
  let finished = false;
  let ready = false;         // the session and the preview are in
  let scale = 1;             // CSS pixels of the window per screen pixel of the editor
  let wheelTimer = 0;
  const pointers = new Map();
  let gesture = null;        // {kind: "drag"|"pinch", ...}
  const waiters = [];

  // ---- talking to the server -------------------------------------------------------
  async function post(path, body) {
    const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
                                          body: body === undefined ? "" : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(text || response.statusText);
    return JSON.parse(text);
  }

  function raw() {
    return { viewport: { width: state.viewport.width, height: state.viewport.height },
             zoom: state.zoom, offset: { x: state.offset.x, y: state.offset.y }, pan: state.pan };
  }

  // Sends the raw state and animates to the settled answer; `path` is settle or turn.
  async function settle(path = "settle") {
    const mine = ++generation;
    pending++;
    update();
    try {
      const next = await post(path, raw());
      if (mine === generation && !gesture) apply(next, true);
    } catch (error) {
      report(error.message, true);
    } finally {
      pending--;
      update();
    }
  }

  function apply(next, animate) {
    const turned = !answer || next.state.viewport.width !== answer.state.viewport.width ||
                   next.state.viewport.height !== answer.state.viewport.height;
    answer = next;
    state = copyState(next.state);
    const target = { x: next.picture.x, y: next.picture.y, width: next.picture.width, height: next.picture.height, pan: next.state.pan };
    if (turned) layout();
    if (animate && shown && !same(shown, target)) {
      animation = { from: { ...shown }, to: target, start: null };
      requestAnimationFrame(step);
    } else {
      animation = null;
      shown = target;
    }
    drawOverlay();
    draw();
    describe();
  }

  function copyState(s) {
    return { viewport: { width: s.viewport.width, height: s.viewport.height }, zoom: s.zoom,
             offset: { x: s.offset.x, y: s.offset.y }, pan: s.pan || 0 };
  }

  function same(a, b) {
    return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height && a.pan === b.pan;
  }

  // ---- drawing -----------------------------------------------------------------------
  // The picture's rectangle for a raw state, as the server computes it for a settled one:
  // its top-left corner at the base point minus the offset, zoom × the photo's size.
  function rectangle(s) {
    const base = answer.base || { x: 0, y: 0 };
    if (session.mode === "swipe") return { ...answer.picture, pan: s.pan };
    return { x: base.x - s.offset.x, y: base.y - s.offset.y,
             width: session.image.width * s.zoom, height: session.image.height * s.zoom, pan: s.pan };
  }

  function step(time) {
    if (!animation) return;
    // The clock starts on the first frame: a frame's timestamp can precede the pointerup.
    if (animation.start === null) animation.start = time;
    const t = Math.min(1, (time - animation.start) / (BOUNCE_SECONDS * 1000));
    const e = 1 - Math.pow(1 - t, 3);
    const { from, to } = animation;
    shown = t >= 1 ? to : {
      x: from.x + (to.x - from.x) * e, y: from.y + (to.y - from.y) * e,
      width: from.width + (to.width - from.width) * e, height: from.height + (to.height - from.height) * e,
      pan: from.pan + (to.pan - from.pan) * e,
    };
    draw();
    if (t >= 1) { animation = null; update(); } else requestAnimationFrame(step);
  }

  function draw() {
    if (!shown) return;
    picture.style.width = shown.width + "px";
    picture.style.height = shown.height + "px";
    picture.style.transform = `translate(${shown.x}px, ${shown.y}px)`;
    if (session.mode === "swipe") {
      const angle = shown.pan / state.viewport.width * Math.PI / 4;   // seed 003: p / W · π/4, as rotate pan= computes
      view.style.transform = `rotate(${angle}rad)`;
    }
  }

  function drawOverlay() {
    const { width: W, height: H } = answer.state.viewport;
    overlay.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const outside = `M0 0H${W}V${H}H0Z`;
    if (answer.circle) {
      const r = answer.circle.diameter / 2, cx = answer.circle.x + r, cy = answer.circle.y + r;
      // The seed's even-odd path: the screen's rectangle plus the circle.
      mask.setAttribute("d", `${outside}M${cx + r} ${cy}A${r} ${r} 0 1 1 ${cx - r} ${cy}A${r} ${r} 0 1 1 ${cx + r} ${cy}Z`);
      ring.setAttribute("cx", cx); ring.setAttribute("cy", cy); ring.setAttribute("r", r);
    } else if (answer.window) {
      const w = answer.window;
      mask.setAttribute("d", `${outside}M${w.x} ${w.y}h${w.width}v${w.height}h${-w.width}Z`);
      for (const [k, v] of [["x", w.x - 0.5], ["y", w.y - 0.5], ["width", w.width + 1], ["height", w.height + 1]]) frame.setAttribute(k, v);
    }
  }

  function layout() {
    const { width: W, height: H } = answer.state.viewport;
    editor.style.width = W + "px";
    editor.style.height = H + "px";
    fitToWindow();
  }

  // The screen keeps its size in CSS pixels; a window too small for it shows it scaled down.
  function fitToWindow() {
    if (!answer) return;
    const { width: W, height: H } = answer.state.viewport;
    document.body.classList.remove("compact");
    let room = innerHeight - help.offsetHeight - 40;
    if (room < H || innerWidth < W) { document.body.classList.add("compact"); room = innerHeight; }
    scale = Math.min(1, innerWidth / W, room / H);
    editor.style.transform = scale === 1 ? "" : `scale(${scale})`;
    editor.style.margin = scale === 1 ? "" : `${(H * scale - H) / 2}px ${(W * scale - W) / 2}px`;
  }

  const number = (v, places = 3) => String(Math.round(v * 10 ** places) / 10 ** places);

  function describe() {
    const a = answer;
    let hint = "";
    if (session.mode === "avatar") {
      const c = a.imageCircle;
      hint = `zoom ${number(a.state.zoom / a.limits.minZoom)} × zmin · circle at ${number(c.x, 1)},${number(c.y, 1)} radius ${number(c.radius, 1)} px of the photo`;
    } else if (session.mode === "slice") {
      const w = a.imageWindow;
      hint = `zoom ${number(a.state.zoom / a.limits.minZoom)} × zmin · window ${number(w.width, 1)}×${number(w.height, 1)} at ${number(w.x, 1)},${number(w.y, 1)} px of the photo`;
    } else if (session.mode === "viewer") {
      hint = `zoom ${number(a.state.zoom / a.limits.minZoom)} × fit · photo ${a.picture.width}×${a.picture.height} at ${a.picture.x},${a.picture.y}`;
    } else {
      hint = `turn ${number(a.angle * 180 / Math.PI, 1)}° about (0.5, 1.5) · ${a.dismissed ? "dismissed" : "past 18.9° a release dismisses"}`;
    }
    caption.innerHTML = "";
    const line = document.createElement("span");
    line.textContent = a.line;
    const small = document.createElement("span");
    small.className = "hint";
    small.textContent = hint;
    caption.append(line, small);
    editor.setAttribute("aria-valuetext", `${a.line}. ${hint}`);
  }

  function liveCaption() {
    if (session.mode !== "swipe" || !state) return;
    const angle = state.pan / state.viewport.width * Math.PI / 4;
    const small = caption.querySelector(".hint");
    if (!small) return;
    const past = Math.abs(angle) > answer.dismissAngle;
    small.textContent = `turn ${number(angle * 180 / Math.PI, 1)}° · ${past ? "release to dismiss" : "release springs back"}`;
    small.classList.toggle("warn", past);
  }

  function report(message, isError) {
    status.textContent = message;
    status.classList.toggle("error", !!isError);
  }

  // ---- idle ----------------------------------------------------------------------------
  function idle() { return ready && !animation && pending === 0 && !gesture && pointers.size === 0; }

  function update() {
    const quiet = idle();
    editor.dataset.settled = quiet ? "true" : "false";
    if (quiet) while (waiters.length) waiters.shift()();
  }

  function settled() {
    return new Promise(resolve => { waiters.push(resolve); update(); });
  }

  // ---- gestures --------------------------------------------------------------------------
  function local(event) {
    const box = editor.getBoundingClientRect();
    return { x: (event.clientX - box.left) / scale, y: (event.clientY - box.top) / scale };
  }

  // Moves the picture by (dx, dy) screen pixels; in swipe mode a horizontal pan turns the view.
  function move(dx, dy) {
    if (session.mode === "swipe") state.pan += dx;
    else { state.offset.x -= dx; state.offset.y -= dy; }
    shown = rectangle(state);
    draw();
    liveCaption();
  }

  // Zooms by `factor` about the screen point p: the photo's point under p stays under p.
  function zoomAbout(factor, p, from = state, fromPoint = p) {
    if (session.mode === "swipe") return;
    const base = answer.base || { x: 0, y: 0 };
    const zoom = from.zoom * factor;
    const ix = (fromPoint.x - base.x + from.offset.x) / from.zoom, iy = (fromPoint.y - base.y + from.offset.y) / from.zoom;
    state.zoom = zoom;
    state.offset = { x: ix * zoom - (p.x - base.x), y: iy * zoom - (p.y - base.y) };
    shown = rectangle(state);
    draw();
  }

  function centre() {
    if (answer.circle) return { x: answer.circle.x + answer.circle.diameter / 2, y: answer.circle.y + answer.circle.diameter / 2 };
    if (answer.window) return { x: answer.window.x + answer.window.width / 2, y: answer.window.y + answer.window.height / 2 };
    return { x: state.viewport.width / 2, y: state.viewport.height / 2 };
  }

  function beginGesture() {
    generation++;           // an answer still on its way is for an older state
    if (animation) {        // catch the picture where it is
      animation = null;
      const s = shown;
      if (session.mode === "swipe") state.pan = s.pan;
      else {
        const base = answer.base || { x: 0, y: 0 };
        state.zoom = s.width / session.image.width;
        state.offset = { x: base.x - s.x, y: base.y - s.y };
      }
    }
  }

  function startFromPointers() {
    const points = [...pointers.values()];
    if (points.length === 1) gesture = { kind: "drag", last: points[0] };
    else if (points.length >= 2) {
      const [a, b] = points;
      gesture = { kind: "pinch", distance: Math.hypot(b.x - a.x, b.y - a.y) || 1,
                  centre: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }, from: copyState(state) };
    }
  }

  editor.addEventListener("pointerdown", event => {
    if (finished || event.target.closest(".toolbar")) return;
    if (event.pointerType === "mouse" && event.button !== 0) return;
    editor.focus({ preventScroll: true });
    editor.setPointerCapture(event.pointerId);
    if (pointers.size === 0) beginGesture();
    pointers.set(event.pointerId, local(event));
    startFromPointers();
    editor.classList.add("dragging");
    update();
    event.preventDefault();
  });

  editor.addEventListener("pointermove", event => {
    if (!pointers.has(event.pointerId) || !gesture) return;
    pointers.set(event.pointerId, local(event));
    const points = [...pointers.values()];
    if (gesture.kind === "drag") {
      const p = points[0];
      move(p.x - gesture.last.x, p.y - gesture.last.y);
      gesture.last = p;
    } else if (points.length >= 2) {
      const [a, b] = points;
      const factor = Math.hypot(b.x - a.x, b.y - a.y) / gesture.distance;
      // Pinch about its centre; moving the centre pans at the same time.
      zoomAbout(factor, { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }, gesture.from, gesture.centre);
    }
    event.preventDefault();
  });

  function pointerEnd(event) {
    if (!pointers.has(event.pointerId)) return;
    pointers.delete(event.pointerId);
    if (pointers.size > 0) { startFromPointers(); return; }
    gesture = null;
    editor.classList.remove("dragging");
    settle();
  }
  editor.addEventListener("pointerup", pointerEnd);
  editor.addEventListener("pointercancel", pointerEnd);

  editor.addEventListener("wheel", event => {
    event.preventDefault();
    if (finished || session.mode === "swipe" || gesture) return;
    if (!wheelTimer) { beginGesture(); pending++; }
    const lines = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? 400 : 1;
    zoomAbout(Math.exp(-event.deltaY * lines * 0.0015), local(event));
    clearTimeout(wheelTimer);
    wheelTimer = setTimeout(() => { wheelTimer = 0; pending--; settle(); }, WHEEL_SETTLE_MS);
    update();
  }, { passive: false });

  editor.addEventListener("keydown", event => {
    if (finished) return;
    const fast = event.shiftKey ? KEY_PAN_FAST : KEY_PAN;
    const steps = { ArrowLeft: [-fast, 0], ArrowRight: [fast, 0], ArrowUp: [0, -fast], ArrowDown: [0, fast] };
    if (event.key in steps) {
      beginGesture();
      const [dx, dy] = steps[event.key];
      if (session.mode === "swipe") move(Math.sign(dx) * KEY_TURN_PAN * (event.shiftKey ? 5 : 1), 0);
      else move(dx, dy);
      settle();
    } else if (event.key === "+" || event.key === "=" || event.key === "-" || event.key === "_") {
      beginGesture();
      zoomAbout(event.key === "+" || event.key === "=" ? KEY_ZOOM : 1 / KEY_ZOOM, centre());
      settle();
    } else if (event.key === "Enter") ok();
    else if (event.key === "Escape") cancel();
    else if (event.key === "t" || event.key === "T") turn();
    else return;
    event.preventDefault();
  });

  // ---- actions ---------------------------------------------------------------------------
  async function turn() {
    if (finished) return settled();
    await settled();
    await settle("turn");
    return settled();
  }

  async function ok() {
    if (finished) return null;
    await settled();
    pending++;
    update();
    report("Writing…");
    try {
      const result = await post("ok", raw());
      finish(result.output ? `Written: ${result.output}` : "Done: the line is on the terminal", false);
      return result;
    } catch (error) {
      report(error.message, true);
      throw error;
    } finally {
      pending--;
      update();
    }
  }

  async function cancel() {
    if (finished) return null;
    const result = await post("cancel");
    finish("Cancelled: nothing written", false);
    return result;
  }

  function finish(message, isError) {
    finished = true;
    document.body.classList.add("finished");
    for (const button of Object.values(buttons)) button.disabled = true;
    report(message + " — you can close this page.", isError);
  }

  buttons.ok.addEventListener("click", () => { ok().catch(() => {}); });
  buttons.cancel.addEventListener("click", () => { cancel().catch(error => report(error.message, true)); });
  buttons.turn.addEventListener("click", () => { turn(); });

  // A closed tab cancels; the server waits a moment, so a reload does not.
  const page = crypto.randomUUID();
  addEventListener("pagehide", () => { if (!finished) navigator.sendBeacon("closed", page); });
  addEventListener("resize", fitToWindow);

  // ---- the automation hook ---------------------------------------------------------------
  window.imagepipe = Object.freeze({
    /** The settled state: zoom, offset, viewport, and the circle (or window) in photo pixels. */
    state() {
      const a = answer;
      return {
        mode: session.mode, image: { ...session.image }, viewport: { ...a.state.viewport },
        zoom: a.state.zoom, offset: { ...a.state.offset }, pan: a.state.pan,
        limits: a.limits ? { ...a.limits } : null, picture: { ...a.picture },
        circle: a.imageCircle ? { ...a.imageCircle } : null, window: a.imageWindow ? { ...a.imageWindow } : null,
        angle: a.angle ?? null, dismissed: a.dismissed ?? null, line: a.line, settled: idle(), finished,
        requested: a.requested ? copyState(a.requested) : null,
      };
    },
    /** A drag by (dx, dy) screen pixels, then the bounce-back; resolves when settled. */
    async drag(dx, dy) { await settled(); beginGesture(); move(dx, dy); await settle(); return settled(); },
    /** A zoom by `factor` about the screen point (x, y) (default: the circle's or window's centre). */
    async zoomBy(factor, x, y) {
      await settled(); beginGesture();
      zoomAbout(factor, x === undefined ? centre() : { x, y });
      await settle(); return settled();
    },
    turn, settled, ok, cancel,
  });

  // ---- start ---------------------------------------------------------------------------------
  (async () => {
    try {
      const response = await fetch("session/" + page);
      session = await response.json();
      editor.dataset.mode = session.mode;
      apply(session.answer, false);
      if (!picture.complete) await new Promise(resolve => { picture.onload = picture.onerror = resolve; });
      ready = true;
      update();
    } catch (error) {
      report("The editor could not start: " + error.message, true);
    }
  })();
})();
