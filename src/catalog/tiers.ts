/** Plan tiers, lowest first. Entitlements per tier live with the access layer that applies them. */
export const TIERS = ['free', 'starter', 'pro', 'ultra', 'super', 'mega', 'max', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}

/** 'Ultra' for 'ultra': the spelling of the X-Tier header and of messages. */
export function tierLabel(tier: Tier): string {
  return tier[0]!.toUpperCase() + tier.slice(1);
}

export function tierAtLeast(tier: Tier, floor: Tier): boolean {
  return TIERS.indexOf(tier) >= TIERS.indexOf(floor);
}
