/**
 * Starts a server of a test's own on ports chosen free a moment before (`freePort`). Other test files run
 * beside this one and may bind such a port in between: when `startOnce` fails with a message that `portTaken`
 * matches, a first start calls `newPorts` and tries again (at most three times); a restart keeps its ports
 * (what the test configured names them) and waits for them to come free, for at most 10 s. Any other failure,
 * or the last, is thrown with the server's own words. `startOnce` answers undefined once the server is up.
 */
export async function startOnPorts(options: {
  firstStart: boolean;
  startOnce: () => Promise<string | undefined>;
  portTaken: RegExp;
  newPorts: () => Promise<void>;
}): Promise<void> {
  const deadline = Date.now() + 10000;
  for (let attempt = 1; ; attempt++) {
    const failure = await options.startOnce();
    if (!failure) return;
    if (!options.portTaken.test(failure)) throw new Error(failure);
    if (options.firstStart) {
      if (attempt >= 3) throw new Error(failure);
      await options.newPorts();
    } else {
      if (Date.now() > deadline) throw new Error(failure);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
