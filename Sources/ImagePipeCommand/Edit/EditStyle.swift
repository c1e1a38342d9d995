/// The editor page's style sheet.
enum EditStyle {
    static let source = #"""
    :root { color-scheme: dark; --accent: #12b7f5; }
    * { box-sizing: border-box; }
    html, body { margin: 0; height: 100%; background: #111; color: #eee;
      font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
    body { overflow: hidden; }
    #stage { position: fixed; inset: 0; display: flex; flex-direction: column; align-items: center; justify-content: center; }
    .editor { position: relative; flex: none; overflow: hidden; background: #000; touch-action: none; user-select: none;
      -webkit-user-select: none; transform-origin: 50% 50%; outline: none; cursor: grab; }
    .editor:focus-visible { box-shadow: 0 0 0 3px var(--accent); }
    .editor.dragging { cursor: grabbing; }
    .view { position: absolute; left: 0; top: 0; width: 100%; height: 100%; background: #000; transform-origin: 50% 150%; }
    .picture { position: absolute; left: 0; top: 0; transform-origin: 0 0; max-width: none; pointer-events: none; }
    .overlay { position: absolute; left: 0; top: 0; width: 100%; height: 100%; pointer-events: none; }
    .mask { fill: rgba(0, 0, 0, 0.35); }
    .mode-slice .mask { fill: rgba(0, 0, 0, 0.6); }
    .ring { fill: none; stroke: #fff; stroke-width: 2; stroke-dasharray: 4 4; }
    .frame { fill: none; stroke: #fff; stroke-width: 1; }
    .mode-avatar .frame, .mode-slice .ring, .mode-viewer .overlay, .mode-swipe .overlay { display: none; }
    .mode-swipe .editor { background-color: #2b2b2b;
      background-image: linear-gradient(45deg, #3a3a3a 25%, transparent 25%, transparent 75%, #3a3a3a 75%),
                        linear-gradient(45deg, #3a3a3a 25%, transparent 25%, transparent 75%, #3a3a3a 75%);
      background-size: 16px 16px; background-position: 0 0, 8px 8px; }
    .caption { position: absolute; left: 0; right: 0; top: 0; margin: 0; padding: 10px 12px 18px; pointer-events: none;
      font: 12px/1.35 ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", monospace; color: #fff; text-align: center;
      background: linear-gradient(rgba(0,0,0,0.72), rgba(0,0,0,0)); text-shadow: 0 1px 2px #000; overflow-wrap: anywhere; }
    .caption .hint { display: block; font-family: system-ui, sans-serif; color: #ccc; }
    .caption .warn { color: #ffb454; }
    .toolbar { position: absolute; left: 0; right: 0; bottom: 0; display: flex; justify-content: space-between; align-items: center;
      gap: 8px; padding: 14px 16px calc(14px + env(safe-area-inset-bottom)); background: linear-gradient(rgba(0,0,0,0), rgba(0,0,0,0.75)); }
    .toolbar button { min-width: 84px; min-height: 40px; padding: 8px 16px; border-radius: 20px; border: 1px solid rgba(255,255,255,0.35);
      background: rgba(40, 40, 40, 0.7); color: #fff; font: 600 15px/1 system-ui, sans-serif; cursor: pointer; }
    .toolbar button.primary { background: var(--accent); border-color: var(--accent); color: #002233; }
    .toolbar button:hover { filter: brightness(1.12); }
    .toolbar button:focus-visible { outline: 3px solid #fff; outline-offset: 2px; }
    .toolbar button:disabled { opacity: 0.45; cursor: default; }
    .help { max-width: 560px; margin: 12px 16px 0; color: #aaa; font-size: 13px; text-align: center; }
    .status { min-height: 1.4em; margin: 6px 16px 0; color: #fff; font-size: 13px; text-align: center; }
    .status.error { color: #ff7b72; }
    .status:empty { display: none; }
    /* A window no larger than the screen shows the screen alone; messages float over it. */
    .compact .help { display: none; }
    .compact .status { position: fixed; left: 50%; bottom: 84px; transform: translateX(-50%); margin: 0; max-width: 90%;
      padding: 8px 14px; border-radius: 10px; background: rgba(20, 20, 20, 0.88); }
    .finished .editor { cursor: default; }
    .finished .toolbar button { pointer-events: none; }
    """#
}
