// Until the app's code has loaded, the page shows a static shell (index.html). A file dropped on
// it then would be opened by the browser in place of the page; instead it is kept here, and the
// app opens what was kept when it starts (www/src/page/components/app.rs, `use_early_files`).
// Once the app has removed the shell, these listeners do nothing: the app handles drops itself.
'use strict';
(() => {
  const early = new DataTransfer();
  window.offloadEarlyDrop = early;
  const shellShown = () => document.getElementById('shell') !== null;
  addEventListener('dragover', (e) => {
    if (!shellShown()) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  addEventListener('drop', (e) => {
    if (!shellShown()) return;
    e.preventDefault();
    for (const file of e.dataTransfer.files) early.items.add(file);
    const status = document.getElementById('shell-status');
    const n = early.files.length;
    if (status) status.textContent = `Loading the explorer… ${n} file${n === 1 ? '' : 's'} will open when it is ready.`;
  });
})();
