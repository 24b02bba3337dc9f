// Placeholder until the API host lands: tells a newcomer what exists so far.
process.stdout.write(
  'Custody Hub: the HTTP API host is not built yet. Available now: the core library (core/), memory adapters\n' +
    '(adapters/memory) and contract suites (contracts-tests/). Run `npm test` to exercise them.\n',
);
