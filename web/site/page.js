// The page around fusionlab's WebAssembly build (web/README.md). It checks the browser can run the
// app (WebGL 2), restores stored settings before main() runs, passes the URL's query as the
// command line (?classroom&lesson=3 -> --classroom --lesson 3), and is the JavaScript half of
// app/platform/platform_web.cpp (downloads, localStorage, opened files, messages) and of the test hook
// of app/gui/page_window_web.cpp (window.flApp).
'use strict';

const kStorePrefix = 'fusionlab:';       // localStorage keys: this prefix and the file's path
const kDownloadFolder = '/downloads';    // the app's current folder: where exports land
const kUploadFolder = '/uploads';        // files the user opened from their disk

const flPage = {
  firstFrameMs: null,
  downloads: [],      // {name, size, text (first 1 MiB, for the test hook)}
  opened: [],         // "path\tname" lines the app has not taken yet
  messages: [],       // every message shown, newest last

  message(text, error) {
    const el = document.getElementById('message');
    el.textContent = text;
    el.title = text;
    el.className = error ? 'error' : '';
    this.messages.push({text, error});
  },
  fatal(text) {
    const el = document.getElementById('fatal');
    el.textContent = text;
    el.style.display = 'block';
    document.getElementById('canvas').style.display = 'none';
    this.message(text.split('\n')[0], true);
  },
  frameTimes: [],     // the app's work per frame (ms), the last 240 frames
  marks: {},          // ms after the navigation started: dataLoaded, runtimeReady, firstFrame
  frameDone(ms) {
    this.frameTimes.push(ms);
    if (this.frameTimes.length > 240) this.frameTimes.shift();
  },
  // performance.now() counts from the navigation's start: the time from asking for the page.
  firstFrameDrawn() {
    this.firstFrameMs = performance.now();
    this.marks.firstFrame = Math.round(this.firstFrameMs);
    this.message('ready: simulated GPUs and the H100/H200 recordings (first frame after ' +
                 Math.round(this.firstFrameMs) + ' ms)' + (this.storageNote ? '; ' + this.storageNote : ''),
                 !!this.storageNote);
  },

  // A file the app wrote into the download folder, handed to the browser as a download.
  offerDownload(name, bytes) {
    const blob = new Blob([bytes], {type: name.endsWith('.csv') ? 'text/csv' : 'application/octet-stream'});
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
    this.downloads.push({name, size: bytes.length,
                         text: new TextDecoder().decode(bytes.subarray(0, 1 << 20))});
    this.message('downloaded ' + name + ' (' + bytes.length + ' bytes)', false);
  },

  // Settings: localStorage under the file's path. "" or why not (full, switched off).
  storeFile(path, text) {
    try {
      window.localStorage.setItem(kStorePrefix + path, text);
      return '';
    } catch (e) {
      const full = e && (e.name === 'QuotaExceededError' || e.code === 22);
      return full ? "the browser's storage for this site is full (" + e.name + ')'
                  : "the browser's storage is switched off for this site (" + (e && e.name) + ')';
    }
  },
  restoreFiles() {
    let keys;
    try {
      const store = window.localStorage;
      keys = Object.keys(store).filter(k => k.startsWith(kStorePrefix));
      for (const key of keys) {
        const path = key.slice(kStorePrefix.length);
        FS.mkdirTree(path.slice(0, path.lastIndexOf('/')) || '/');
        FS.writeFile(path, store.getItem(key));
      }
    } catch (e) {
      this.storageNote = "settings are not kept: the browser's storage is switched off (" + (e && e.name) + ')';
    }
  },

  takeOpened() {
    const text = this.opened.join('\n');
    this.opened = [];
    return text;
  },
  async openFiles(files) {
    for (const file of files) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const safe = file.name.replace(/[^A-Za-z0-9._-]/g, '_');
      const path = kUploadFolder + '/' + Date.now() + '-' + safe;
      FS.writeFile(path, bytes);
      this.opened.push(path + '\t' + file.name);
    }
  },
};

// The test hook (tests/web/web_test.py): JSON through the app's exported functions, between frames.
window.flApp = {
  call(fn, arg) {
    let ptr;
    if (arg === undefined) {
      ptr = Module['_' + fn]();
    } else {
      const text = JSON.stringify(arg);
      const size = lengthBytesUTF8(text) + 1;
      const argPtr = Module._malloc(size);
      stringToUTF8(text, argPtr, size);
      ptr = Module['_' + fn](argPtr);
      Module._free(argPtr);
    }
    const out = UTF8ToString(ptr);
    Module._free(ptr);
    return out;
  },
  snapshot() { return JSON.parse(this.call('fl_test_snapshot')); },
  apply(request) { return this.call('fl_test_apply', request); },
  page() {
    return {firstFrameMs: flPage.firstFrameMs, downloads: flPage.downloads, messages: flPage.messages,
            frameTimes: flPage.frameTimes, marks: flPage.marks,
            resources: performance.getEntriesByType('resource').map(r => [r.name.split('/').pop(),
                                                                         Math.round(r.responseEnd)])};
  },
};

// The URL's query as the command line: ?classroom&lesson=3&sim=H100 -> --classroom --lesson 3 --sim H100.
// A first visit on a high-density screen (no stored settings) starts at font scale = the pixel ratio:
// the canvas is drawn in device pixels (app/gui/page_window_web.cpp).
function argumentsFromQuery() {
  const args = [];
  let stored = false;
  try {
    stored = Object.keys(window.localStorage).some(k => k.startsWith(kStorePrefix));
  } catch (e) {
    stored = false;
  }
  const query = new URLSearchParams(window.location.search);
  if (!stored && !query.has('font-scale') && window.devicePixelRatio > 1)
    args.push('--font-scale', String(Math.min(3, Math.round(window.devicePixelRatio * 4) / 4)));
  for (const [key, value] of query) {
    if (!/^[a-z][a-z-]*$/.test(key)) continue;
    args.push('--' + key);
    if (value !== '') args.push(value);
  }
  return args;
}

// Asked of the page's own canvas, with the attributes emscripten's GLFW asks for (no antialiasing;
// depth, stencil, alpha), so the app's window gets this same context instead of a second one: the
// first WebGL context of a page is the slow part of starting (the GPU process, or SwiftShader).
function webgl2Missing() {
  try {
    const gl = document.getElementById('canvas').getContext('webgl2',
        {antialias: false, depth: true, stencil: true, alpha: true});
    return !gl;
  } catch (e) {
    return true;
  }
}

var Module = {
  canvas: document.getElementById('canvas'),
  arguments: argumentsFromQuery(),
  onRuntimeInitialized: () => { flPage.marks.runtimeReady = Math.round(performance.now()); },
  preRun: [() => {
    flPage.marks.dataLoaded = Math.round(performance.now());
    FS.mkdirTree(kDownloadFolder);
    FS.mkdirTree(kUploadFolder);
    flPage.restoreFiles();
    FS.chdir(kDownloadFolder);
  }],
  // The app's stdout and stderr (command-line messages): the console, as information.
  print: text => console.log(text),
  printErr: text => console.log('[stderr] ' + text),
  setStatus: text => { if (text) flPage.message(text, false); },
  onAbort: what => flPage.fatal('fusionlab stopped: ' + what +
                                '\nReload the page; if it happens again, the browser console has the details.'),
};

// The mouse wheel as the desktop's GLFW reports it: emscripten 3.1.6's GLFW passes the browser's
// deltaY (about 100 pixels per notch, positive = towards the user) straight to the scroll callback,
// where the desktop gives 1 per notch, positive = away. Rewritten in the capture phase, before GLFW's
// own listener on the canvas sees it.
function normalizeWheel(event) {
  if (event.flNormalized || event.target !== Module.canvas) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  const perNotch = event.deltaMode === 1 ? 3 : event.deltaMode === 2 ? 1 / 80 : 100;
  const copy = new WheelEvent('wheel', {
    deltaX: -event.deltaX / perNotch, deltaY: -event.deltaY / perNotch, deltaMode: 0,
    clientX: event.clientX, clientY: event.clientY, screenX: event.screenX, screenY: event.screenY,
    ctrlKey: event.ctrlKey, shiftKey: event.shiftKey, altKey: event.altKey, metaKey: event.metaKey,
    bubbles: true, cancelable: true});
  copy.flNormalized = true;
  event.target.dispatchEvent(copy);
}

// Keys the app uses that the browser would take: F5 (classroom mode, not reload), F12 (save a PNG,
// not the developer tools), Ctrl +/-/= (the app's font scale, not the page zoom).
function keepAppKeys(event) {
  const zoomKey = (event.ctrlKey || event.metaKey) && ['+', '-', '=', '_'].includes(event.key);
  if (event.key === 'F5' || event.key === 'F12' || zoomKey) event.preventDefault();
}

(function start() {
  window.addEventListener('wheel', normalizeWheel, {capture: true, passive: false});
  window.addEventListener('keydown', keepAppKeys, {capture: true});
  document.getElementById('open').addEventListener('change', e => {
    flPage.openFiles(Array.from(e.target.files)).catch(err => flPage.message('cannot open: ' + err, true));
    e.target.value = '';
  });
  if (webgl2Missing()) {
    flPage.fatal('This browser cannot run fusionlab: it has no WebGL 2 (or it is switched off).\n\n' +
                 'fusionlab draws with WebGL 2, which current Chrome, Edge, Firefox and Safari (15 and later) have.\n' +
                 'Check that hardware acceleration is on, or use the desktop program (README.md).');
    return;
  }
  const script = document.createElement('script');
  script.src = 'fusionlab.js';
  script.onerror = () => flPage.fatal('cannot load fusionlab.js: is the whole site folder on the server?');
  document.body.appendChild(script);
})();
