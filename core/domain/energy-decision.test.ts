import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decideEnergySource, type EnergyDecision, type EnergyInput } from './energy-decision.js';

const count = fc.integer({ min: 0, max: 2_000_000 });
const inputArb: fc.Arbitrary<EnergyInput> = fc.record({
  needed: count,
  alreadyAvailable: count,
  selfDelegatableEnergy: count,
  rentalAvailable: fc.boolean(),
  burnEnabled: fc.boolean(),
});

/** The DESIGN.md "Collection / Energy" rule written out independently as a priority list. */
function expectedPath(input: EnergyInput): EnergyDecision['path'] {
  const shortfall = input.needed - input.alreadyAvailable;
  if (shortfall <= 0) return 'none';
  if (input.selfDelegatableEnergy >= shortfall) return 'self';
  if (input.rentalAvailable) return 'rental';
  if (input.burnEnabled) return 'burn';
  return null;
}

describe('decideEnergySource (DESIGN.md: self-delegation, else rental, else burn if enabled, else FAILED)', () => {
  it('follows the priority order for every input', () => {
    fc.assert(fc.property(inputArb, (input) => {
      expect(decideEnergySource(input).path).toBe(expectedPath(input));
    }));
  });

  it('acquires exactly the shortfall: what the sub-address has plus what is acquired is what the transfer needs', () => {
    fc.assert(fc.property(inputArb, (input) => {
      const decision = decideEnergySource(input);
      if (decision.path === null || decision.path === 'none') return;
      expect(decision.energy).toBeGreaterThan(0);
      expect(input.alreadyAvailable + decision.energy).toBe(input.needed);
    }));
  });

  it('needs nothing when the sub-address already has enough, whatever the sources', () => {
    fc.assert(fc.property(inputArb, (input) => {
      fc.pre(input.alreadyAvailable >= input.needed);
      expect(decideEnergySource(input)).toEqual({ path: 'none', energy: 0 });
    }));
  });

  it('self-delegates whenever the main address covers the shortfall, even when rental and burn are on', () => {
    fc.assert(fc.property(count, count, fc.nat(1_000), (needed, available, spare) => {
      fc.pre(needed > available);
      const shortfall = needed - available;
      const input = { needed, alreadyAvailable: available, selfDelegatableEnergy: shortfall + spare, rentalAvailable: true, burnEnabled: true };
      expect(decideEnergySource(input)).toEqual({ path: 'self', energy: shortfall });
    }));
  });

  it('never splits a shortfall: one unit short of self-delegation goes to the next source', () => {
    const input = { needed: 65_000, alreadyAvailable: 5_000, selfDelegatableEnergy: 59_999, rentalAvailable: true, burnEnabled: true };
    expect(decideEnergySource(input)).toEqual({ path: 'rental', energy: 60_000 });
    expect(decideEnergySource({ ...input, selfDelegatableEnergy: 60_000 })).toEqual({ path: 'self', energy: 60_000 });
    expect(decideEnergySource({ ...input, rentalAvailable: false })).toEqual({ path: 'burn', energy: 60_000 });
  });

  it('burns only when enabled; with no source the task fails with a reason naming the numbers', () => {
    fc.assert(fc.property(inputArb, (input) => {
      const decision = decideEnergySource(input);
      if (decision.path === 'burn') expect(input.burnEnabled).toBe(true);
      if (decision.path === 'rental') expect(input.rentalAvailable).toBe(true);
      if (decision.path !== null) return;
      const shortfall = input.needed - input.alreadyAvailable;
      expect(input.rentalAvailable || input.burnEnabled).toBe(false);
      expect(decision.reason).toContain(String(shortfall));
      expect(decision.reason).toContain(String(input.selfDelegatableEnergy));
    }));
  });

  it('more delegatable stake never moves a decision away from self-delegation', () => {
    fc.assert(fc.property(inputArb, fc.nat(1_000_000), (input, extra) => {
      fc.pre(decideEnergySource(input).path === 'self');
      expect(decideEnergySource({ ...input, selfDelegatableEnergy: input.selfDelegatableEnergy + extra }).path).toBe('self');
    }));
  });

  it('refuses counts that are negative, fractional or not numbers', () => {
    const base = { needed: 10, alreadyAvailable: 0, selfDelegatableEnergy: 0, rentalAvailable: false, burnEnabled: false };
    const bad = fc.oneof(fc.integer({ max: -1 }), fc.double({ noInteger: true }), fc.constant(Number.NaN), fc.constant(Number.POSITIVE_INFINITY));
    const field = fc.constantFrom('needed', 'alreadyAvailable', 'selfDelegatableEnergy' as const);
    fc.assert(fc.property(field, bad, (name, value) => {
      expect(() => decideEnergySource({ ...base, [name]: value })).toThrow(RangeError);
    }));
  });
});
