import type { ApiKeyTable, IdempotencyKeyTable, ProviderTable, SettingTable } from '../modules/api-keys/api-key.table.ts';
import type { BusinessUnitTable } from '../modules/business-units/business-unit.table.ts';
import type { CarrierTable } from '../modules/carriers/carrier.table.ts';
import type { EmployerTable } from '../modules/employers/employer.table.ts';
import type { GroupTable } from '../modules/groups/group.table.ts';
import type { SubclassTable } from '../modules/subclasses/subclass.table.ts';

/** Every table, as Kysely sees it. Each module owns the row type of its tables. */
export interface Database {
  settings: SettingTable;
  providers: ProviderTable;
  api_keys: ApiKeyTable;
  idempotency_keys: IdempotencyKeyTable;
  employers: EmployerTable;
  carriers: CarrierTable;
  carrier_groups: GroupTable;
  business_units: BusinessUnitTable;
  subclasses: SubclassTable;
}
