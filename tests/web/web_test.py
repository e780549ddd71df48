#!/usr/bin/python3
"""The browser build (web/README.md) in a real browser: headless Chromium driven by Selenium.

    tests/web/web_test.py --site build/web/site --fusionlab build/fusionlab --out build/web-test

Serves the site on 127.0.0.1, loads it, and checks, failing on any console error on the way:
  1. the first frame is drawn within 3 s of asking for the page;
  2. screenshots of the main view, the memory animation side by side, the timeline, the roofline
     and a lesson step in classroom mode match the desktop's `fusionlab shot` of the same state
     (same size, layout and text: at most a few percent of pixels differ; why any differ at all is
     written beside each limit);
  3. switching to the recorded H100 gives the recording's numbers, and changing N changes them;
  4. Export CSV arrives as a browser download whose rows are the results table's;
  5. bad input gets a message on the page: a broken lesson and a broken recording opened from the
     disk, the browser's storage switched off, a browser without WebGL 2.
It drives the app through the page's test hook (window.flApp, app/gui/page_window_web.cpp), which
sets state and reads the results table, rather than clicking pixels. Writes the screenshots, the
desktop's and a difference image per state, and timings.json, into --out.
Runs with Debian's python3 (python3-selenium, python3-pil) and chromium-driver.
"""
import argparse
import csv
import functools
import glob
import http.server
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

from PIL import Image, ImageChops
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

BAR = 26  # px: the page's bar above the canvas (web/site/index.html)
WIDTH, HEIGHT = 1280, 720


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


# ---- the site on 127.0.0.1 -----------------------------------------------------------------------
class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, '.wasm': 'application/wasm'}

    def log_message(self, *args):
        pass


def serve(site):
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(QuietHandler, directory=site))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, 'http://127.0.0.1:%d/' % httpd.server_address[1]


# ---- the browser -----------------------------------------------------------------------------------
def chromium(downloads, extra_args=(), prefs=None):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which('chromium') or '/usr/bin/chromium'
    for arg in ('--headless=new', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
                '--window-size=%d,%d' % (WIDTH, HEIGHT + BAR), '--hide-scrollbars', '--force-device-scale-factor=1',
                *extra_args):
        options.add_argument(arg)
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    options.add_experimental_option('prefs', {'download.default_directory': downloads,
                                              'download.prompt_for_download': False, **(prefs or {})})
    driver = webdriver.Chrome(service=Service(shutil.which('chromedriver') or '/usr/bin/chromedriver'),
                              options=options)
    # The viewport exactly 1280 x (720 + the bar) CSS pixels at one device pixel each.
    driver.execute_cdp_cmd('Emulation.setDeviceMetricsOverride',
                           {'width': WIDTH, 'height': HEIGHT + BAR, 'deviceScaleFactor': 1, 'mobile': False})
    driver.execute_cdp_cmd('Page.setDownloadBehavior', {'behavior': 'allow', 'downloadPath': downloads})
    return driver


class Page:
    def __init__(self, driver):
        self.d = driver
        self.console = []

    def console_errors(self):
        """Console messages at error level since the last call (every one fails the test)."""
        entries = self.d.get_log('browser')
        self.console += entries
        return [e['message'] for e in entries if e['level'] == 'SEVERE']

    def expect_no_console_errors(self, when):
        errors = self.console_errors()
        check(not errors, 'console errors %s:\n  %s' % (when, '\n  '.join(errors)))

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def wait(self, what, predicate, timeout=60.0):
        end = time.time() + timeout
        while time.time() < end:
            value = predicate()
            if value:
                return value
            time.sleep(0.05)
        raise Failure('timed out after %.0f s waiting for %s' % (timeout, what))

    def snapshot(self):
        return self.js('return flApp.snapshot()')

    def apply(self, request):
        why = self.js('return flApp.apply(arguments[0])', request)
        check(why == '', 'flApp.apply(%s) refused: %s' % (json.dumps(request), why))

    def settle(self, what, timeout=120.0):
        """Until nothing is pending and a few more frames were drawn with the final state."""
        self.wait(what + ': measured', lambda: not self.snapshot()['busy'], timeout)
        frames = self.snapshot()['frames']
        self.wait(what + ': drawn', lambda: self.snapshot()['frames'] >= frames + 8, 30)
        return self.snapshot()

    def canvas_png(self, path):
        png = self.d.find_element(By.ID, 'canvas').screenshot_as_png
        with open(path, 'wb') as f:
            f.write(png)
        return path

    def page(self):
        return self.js('return flApp.page()')

    def last_message(self):
        messages = self.page()['messages']
        return messages[-1] if messages else {'text': '', 'error': False}


# ---- the desktop's screenshots and the comparison ----------------------------------------------------
def desktop_shot(fusionlab, out, *args):
    command = [fusionlab, 'shot', '--out', out, *args]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    check(run.returncode == 0, '%s failed (%d): %s%s' % (' '.join(command), run.returncode, run.stdout, run.stderr))
    if os.path.isdir(out):  # a lesson bundle: its one step's picture
        pngs = sorted(glob.glob(os.path.join(out, '**', '*.png'), recursive=True))
        check(len(pngs) == 1, 'the lesson bundle %s holds %d PNGs, not 1' % (out, len(pngs)))
        return pngs[0]
    return out


# The parts of a 1280x720 picture compared on their own: the views (right of the parameter column,
# between the banner and the status line) must match closely; the whole picture more loosely,
# since the interactive page differs from a shot in known places: a "Lessons" button above the
# parameters (shots have no buttons for opening panes) moves the parameter column down by one row,
# and the banner's second line says why there is no GPU ("this build has no CUDA kernels" in the
# browser, "no usable CUDA device" on this machine's desktop build).
VIEWS_BOX = (352, 60, 1280, 684)


def percent_different(web, desk, box=None):
    """Percent of pixels whose largest channel difference exceeds 48 of 255, and the mask."""
    if box:
        web, desk = web.crop(box), desk.crop(box)
    channels = ImageChops.difference(web, desk).split()
    largest = ImageChops.lighter(ImageChops.lighter(channels[0], channels[1]), channels[2])
    mask = largest.point(lambda v: 255 if v > 48 else 0)
    return 100.0 * mask.histogram()[255] / (web.size[0] * web.size[1]), mask, largest


def compare(web_png, desktop_png, diff_png, limits, why, boxes=None):
    """limits: {'whole': percent, 'views': percent}; fails above either. boxes = (web box, desktop
    box): compare only those parts (same size), against limits['views']."""
    web = Image.open(web_png).convert('RGB')
    desk = Image.open(desktop_png).convert('RGB')
    if boxes:
        web, desk = web.crop(boxes[0]), desk.crop(boxes[1])
    check(web.size == desk.size, '%s is %s but the desktop shot %s is %s' % (web_png, web.size, desktop_png, desk.size))
    whole, mask, largest = percent_different(web, desk)
    Image.merge('RGB', (mask, largest, largest)).save(diff_png)
    views = whole if boxes else percent_different(web, desk, VIEWS_BOX)[0]
    print('  %-30s %5.2f %% of pixels differ (limit %.1f), views %5.2f %% (limit %.1f): %s' % (
        os.path.basename(web_png), whole, limits['whole'], views, limits['views'], why))
    check(whole <= limits['whole'] and views <= limits['views'],
          '%s differs from the desktop shot %s: %.2f %% of pixels (limit %.1f), %.2f %% of the views (limit %.1f); '
          'see %s' % (web_png, desktop_png, whole, limits['whole'], views, limits['views'], diff_png))
    return whole, views


# ---- the test ---------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--site', required=True)
    ap.add_argument('--fusionlab', required=True, help="the desktop binary, for `fusionlab shot`")
    ap.add_argument('--out', required=True)
    opts = ap.parse_args()
    out = os.path.abspath(opts.out)
    shutil.rmtree(out, ignore_errors=True)
    downloads = os.path.join(out, 'downloads')
    os.makedirs(downloads)
    for name in ('index.html', 'page.js', 'fusionlab.js', 'fusionlab.wasm', 'fusionlab.data'):
        check(os.path.isfile(os.path.join(opts.site, name)), 'the site has no %s (build it: web/build.sh)' % name)
    site_bytes = sum(os.path.getsize(os.path.join(opts.site, f)) for f in os.listdir(opts.site))
    check(site_bytes < 20 * 1024 * 1024, 'the site is %.1f MiB, over 20 MiB' % (site_bytes / 2**20))
    httpd, url = serve(opts.site)
    timings = {'site_mib': round(site_bytes / 2**20, 2)}
    driver = chromium(downloads)
    page = Page(driver)
    try:
        # 1. Load; the first frame within 3 s.
        driver.get(url)
        page.wait('the first frame', lambda: page.js('return flPage.firstFrameMs'), 30)
        first = page.js('return flPage.firstFrameMs')
        timings['first_frame_ms'] = round(first)
        timings['load_average_1min'] = os.getloadavg()[0]  # the machine's load while measuring
        timings['load_marks_ms'] = page.page()['marks']
        timings['resources_ms'] = page.page()['resources']
        print('first frame drawn %.0f ms after the page was asked for (%s; %s)' % (
            first, timings['load_marks_ms'], timings['resources_ms']))
        # 3 s (the goal); FUSIONLAB_WEB_FIRST_FRAME_MS may raise it on a machine that is shared.
        limit = float(os.environ.get('FUSIONLAB_WEB_FIRST_FRAME_MS', '3000'))
        check(first <= limit, 'the first frame came %.0f ms after loading, over %.0f ms' % (first, limit))
        size = page.js("const c = document.getElementById('canvas'); return [c.width, c.height]")
        check(size == [WIDTH, HEIGHT], 'the canvas is %s, not the window below the bar (%dx%d)' % (size, WIDTH, HEIGHT))
        snap = page.settle('the default view')
        check(snap['results'], 'no results on the default view: %s' % json.dumps(snap)[:500])
        page.expect_no_console_errors('while loading')
        default_settings = snap['settings']
        # The default view's jobs run back to back in the page (no frames between them), three times.
        batch = []
        for _ in range(3):
            page.apply({'time_batch': True})
            batch.append(page.snapshot()['batch_ms'])
        timings['default_batch_ms'] = [round(b, 1) for b in batch]
        timings['default_batch_settings'] = {k: default_settings[k] for k in ('backend', 'reps')}
        timings['default_batch_settings']['params'] = default_settings['params']['workload']

        # 2. Views beside the desktop's shots of the same state.
        def shot_pair(name, desktop_args, limit, why, height=HEIGHT, boxes=None):
            web = page.canvas_png(os.path.join(out, name + '-web.png'))
            lesson = '--lesson' in desktop_args
            desk = desktop_shot(opts.fusionlab, os.path.join(out, name + '-desktop' + ('' if lesson else '.png')),
                                '--size', '%dx%d' % (WIDTH, height), *desktop_args)
            compare(web, desk, os.path.join(out, name + '-diff.png'), limit, why, boxes)

        # The same repetitions as the page's settings (a shot's default is 20).
        reps = ['--reps', str(default_settings['reps'])]
        shot_pair('main', reps, {'whole': 6.0, 'views': 1.0}, 'the Lessons button and the banner (above)')
        frame_ms = page.page()['frameTimes'][-60:]
        timings['frame_ms_median'] = round(statistics.median(frame_ms), 2)
        timings['frame_ms_max'] = round(max(frame_ms), 2)

        page.apply({'view': 'memory', 'memory': ['unfused', 'fused'], 'memory_step': 3})
        page.settle('the memory view')
        # The animation's controls (one line: variant, "vs" the second, play, scrub, a "..." menu) are
        # drawn by the page and by the desktop's shot alike (app/gui/panel_memory.cpp draws them in
        # shots too, so bundles show what the class sees): the whole views are compared.
        shot_pair('memory-side-by-side', reps + ['--view', 'memory', '--variant', 'unfused', '--compare', 'fused',
                                                 '--step', '3'], {'whole': 6.0, 'views': 1.0},
                  'the Lessons button and the banner')

        page.apply({'view': 'timeline'})
        page.settle('the timeline')
        shot_pair('timeline', reps + ['--view', 'timeline'], {'whole': 6.0, 'views': 1.0},
                  'the Lessons button and the banner')

        # The desktop's roofline shot measures the main size at 1/4 and 1/2 first (a trail of two
        # earlier positions): the page does the same moves while the roofline is shown.
        page.apply({'view': 'roofline'})
        rows = default_settings['params']['rows']
        for value in (round(rows * 0.25), round(rows * 0.5), rows):
            page.apply({'settings': {'params': {'rows': value}}})
            page.settle('the roofline at rows=%d' % value)
        shot_pair('roofline', reps + ['--view', 'roofline'], {'whole': 6.0, 'views': 1.0},
                  'the Lessons button and the banner')
        page.expect_no_console_errors('while showing the views')

        # 3. The recorded H100, and N changes the numbers.
        page.apply({'view': 'results', 'settings': {'backend': 'recorded:h100-2026-11-27',
                                                    'params': {'workload': 'attention', 'N': 4096, 'd': 64}}})
        before = page.settle('the recorded H100 at N=4096')
        check('H100' in before['device'], 'the recorded H100 was asked for, the numbers come from %r' % before['device'])
        check(before['results'] and all(r['ok'] for r in before['results']),
              'recorded H100 at N=4096: %s' % json.dumps(before['results'])[:800])
        page.apply({'settings': {'params': {'N': 1024}}})
        after = page.settle('the recorded H100 at N=1024')
        t_before = {r['variant']: r['time']['median_ms'] for r in before['results']}
        t_after = {r['variant']: r['time']['median_ms'] for r in after['results']}
        check(all(r['params']['N'] == 1024 for r in after['results']), 'results after N=1024: %s' % t_after)
        common = set(t_before) & set(t_after)
        check(common and all(t_before[v] != t_after[v] for v in common),
              'changing N from 4096 to 1024 did not change the recorded times: %s -> %s' % (t_before, t_after))
        print('recorded H100, median ms at N=4096 -> N=1024: %s' %
              ', '.join('%s %.4g -> %.4g' % (v, t_before[v], t_after[v]) for v in sorted(common)))

        # 4. Export CSV: a browser download with the table's rows.
        page.apply({'export': 'csv'})
        got = page.wait('the CSV download', lambda: [d for d in page.page()['downloads'] if d['name'].endswith('.csv')])
        rows_csv = list(csv.DictReader(io.StringIO(got[-1]['text'])))
        check(len(rows_csv) == len(after['results']),
              'the CSV has %d rows, the results table %d' % (len(rows_csv), len(after['results'])))
        check([r['variant'] for r in rows_csv] == [r['variant'] for r in after['results']],
              'CSV variants %s, table %s' % ([r['variant'] for r in rows_csv], [r['variant'] for r in after['results']]))
        on_disk = os.path.join(downloads, got[-1]['name'])
        page.wait('the CSV in the download folder', lambda: os.path.isfile(on_disk), 30)
        print('CSV download %s: %d rows (%s)' % (got[-1]['name'], len(rows_csv), ', '.join(r['variant'] for r in rows_csv)))

        # 5a. Files opened from the disk: a broken lesson, a broken recording, then a good lesson.
        bad_lesson = os.path.join(out, 'broken.lesson')
        with open(bad_lesson, 'w') as f:
            f.write('# lesson without steps\nthis is not a lesson file\n')
        bad_recording = os.path.join(out, 'recording.json')
        with open(bad_recording, 'w') as f:
            f.write('{"tool": "fusionlab", "recording": {"format": 1}, "measurements": [')
        opener = driver.find_element(By.ID, 'open')
        for path, expect in ((bad_lesson, 'is not a valid lesson'), (bad_recording, 'nothing was opened')):
            count = len(page.page()['messages'])
            opener.send_keys(path)
            page.wait('a message about ' + os.path.basename(path), lambda: len(page.page()['messages']) > count, 20)
            message = page.last_message()
            check(message['error'] and expect in message['text'],
                  'opening %s: the page said %r' % (os.path.basename(path), message))
            print('opened %s: %s' % (os.path.basename(path), message['text'].splitlines()[0]))

        # 6. A lesson step in classroom mode.
        page.apply({'lesson': '03-attention-memory-bound', 'step': 1, 'classroom': True,
                    'settings': {'backend': default_settings['backend']}})
        page.settle('lesson 3, step 2, classroom')
        time.sleep(3.5)  # the highlight ring pulses for 3 s after a step is entered, then stands still
        # The lesson pane differs on purpose: the page has its Leave classroom and Close buttons and
        # the "R returns to this step" hint, a shot (a still for a bundle) has not; the views beside
        # it are compared. `shot --step` counts from 1.
        views = (552, 90, WIDTH, HEIGHT - 60)
        # The page poses the step's predictions first (numbers hidden until P), as a class sees it.
        shot_pair('lesson-classroom', reps + ['--lesson', '03-attention-memory-bound', '--step', '2', '--classroom',
                                              '--predictions-posed'],
                  {'whole': 1.0, 'views': 1.0}, 'the views beside the lesson pane', boxes=(views, views))
        page.expect_no_console_errors('in the lesson')
    finally:
        driver.quit()

    # 5b. The browser's storage switched off (cookies blocked): said on the page, the app runs.
    driver = chromium(downloads, prefs={'profile.default_content_setting_values.cookies': 2})
    page = Page(driver)
    try:
        driver.get(url)
        page.wait('the first frame without storage', lambda: page.js('return flPage.firstFrameMs'), 30)
        message = page.last_message()
        check(message['error'] and 'storage is switched off' in message['text'],
              'with storage blocked the page said %r' % message)
        page.apply({'settings': {'params': {'rows': 1024}}})
        page.wait('the settings message', lambda: 'storage is switched off' in page.snapshot()['settings_message'], 20)
        print('storage off: %s' % message['text'])
        page.expect_no_console_errors('with storage switched off')
    finally:
        driver.quit()

    # 5c. No WebGL 2: the page says so instead of loading the app.
    driver = chromium(downloads, extra_args=('--disable-webgl2',))
    page = Page(driver)
    try:
        driver.get(url)
        text = page.wait('the no-WebGL 2 message',
                         lambda: page.js("return document.getElementById('fatal').textContent"), 20)
        check('no WebGL 2' in text, 'without WebGL 2 the page said %r' % text)
        check(not page.js("return typeof Module._main === 'function'"), 'the app was loaded without WebGL 2')
        print('no WebGL 2: %s' % text.splitlines()[0])
        page.expect_no_console_errors('without WebGL 2')
    finally:
        driver.quit()
        httpd.shutdown()

    with open(os.path.join(out, 'timings.json'), 'w') as f:
        json.dump(timings, f, indent=2)
    print('timings: %s' % json.dumps(timings))
    print('web test passed; pictures in %s' % out)
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Failure as e:
        print('web test FAILED: %s' % e, file=sys.stderr)
        sys.exit(1)
