// Preloaded with `node -r bench/next-tick-cost.js …`: on SIGUSR2 the process prints what a process.nextTick
// call costs it now (500 calls a turn of the event loop, 400 turns), to stderr (issue 43, fourth part).
process.on('SIGUSR2', () => {
  let total = 0n;
  let turns = 0;
  const callback = () => undefined;
  const turn = () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 500; i++) process.nextTick(callback);
    total += process.hrtime.bigint() - t0;
    if (++turns < 400) setImmediate(turn);
    else process.stderr.write(`nextTick ${(Number(total) / (400 * 500)).toFixed(1)} ns a call\n`);
  };
  setImmediate(turn);
});
