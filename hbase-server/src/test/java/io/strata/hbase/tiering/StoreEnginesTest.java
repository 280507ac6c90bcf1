package io.strata.hbase.tiering;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine;
import org.apache.hadoop.hbase.regionserver.DefaultStoreEngine;
import org.apache.hadoop.hbase.regionserver.StripeStoreEngine;
import org.junit.Test;

public class StoreEnginesTest {
  private static final String TIERED = TieredStoreEngine.class.getName();
  private static final String DATE = DateTieredStoreEngine.class.getName();
  private static final String STRIPE = StripeStoreEngine.class.getName();

  /** A subclass of Strata's engine places as Strata's does. */
  public static class Sub extends TieredStoreEngine {
  }

  private static Configuration site(String engine) {
    Configuration c = new Configuration(false);
    if (engine != null) {
      c.set(StoreEngines.KEY, engine);
    }
    return c;
  }

  private static ColumnFamilyDescriptor family(String name, String engine) {
    ColumnFamilyDescriptorBuilder b = ColumnFamilyDescriptorBuilder.newBuilder(name.getBytes());
    if (engine != null) {
      b.setConfiguration(StoreEngines.KEY, engine);
    }
    return b.build();
  }

  private static TableDescriptor table(String engine, ColumnFamilyDescriptor... families) {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(TableName.valueOf("t"));
    if (engine != null) {
      b.setValue(StoreEngines.KEY, engine);
    }
    for (ColumnFamilyDescriptor f : families) {
      b.setColumnFamily(f);
    }
    return b.build();
  }

  @Test
  public void familyWinsOverTableOverSite() {
    ColumnFamilyDescriptor plain = family("a", null);
    ColumnFamilyDescriptor date = family("d", DATE);
    assertEquals(DefaultStoreEngine.class.getName(),
      StoreEngines.engineOf(site(null), null, null));
    assertEquals(TIERED, StoreEngines.engineOf(site(TIERED), table(null, plain), plain));
    assertEquals(STRIPE, StoreEngines.engineOf(site(TIERED), table(STRIPE, plain), plain));
    assertEquals(DATE, StoreEngines.engineOf(site(TIERED), table(STRIPE, date), date));
    assertEquals(DATE, StoreEngines.engineOf(site(TIERED), table(null, family("x", " " + DATE
      + " ")), family("x", " " + DATE + " ")));
  }

  @Test
  public void onlyStrataEnginesPlace() {
    assertTrue(StoreEngines.places(TIERED));
    assertTrue(StoreEngines.places(Sub.class.getName()));
    assertTrue(StoreEngines.places(TieredDateTieredStoreEngine.class.getName()));
    assertTrue(StoreEngines.places(TieredStripeStoreEngine.class.getName()));
    assertFalse(StoreEngines.places(DATE));
    assertFalse(StoreEngines.places(STRIPE));
    assertFalse(StoreEngines.places(DefaultStoreEngine.class.getName()));
    assertFalse(StoreEngines.places("com.example.NoSuchEngine"));
    assertFalse(StoreEngines.places(null));
  }

  @Test
  public void reasonNamesTheEngineWhenTheSitePlacesAndTheFamilyDoesNot() {
    ColumnFamilyDescriptor date = family("d", DATE);
    String reason = StoreEngines.placementOffReason(site(TIERED), table(null, date), date);
    assertNotNull(reason);
    assertTrue(reason, reason.contains(DATE));
    assertTrue(reason, reason.contains("the family's " + StoreEngines.KEY));
    assertTrue(reason, reason.contains("pins no storage policy"));

    ColumnFamilyDescriptor plain = family("a", null);
    reason = StoreEngines.placementOffReason(site(TIERED), table(STRIPE, plain), plain);
    assertNotNull(reason);
    assertTrue(reason, reason.contains(STRIPE) && reason.contains("the table's"));

    ColumnFamilyDescriptor custom = family("c", "com.example.CustomEngine");
    assertNotNull(StoreEngines.placementOffReason(site(TIERED), table(null, custom), custom));
  }

  @Test
  public void noReasonWhenPlacedOrWhenTheSiteDoesNotPlace() {
    ColumnFamilyDescriptor plain = family("a", null);
    assertNull(StoreEngines.placementOffReason(site(TIERED), table(null, plain), plain));
    ColumnFamilyDescriptor sub = family("s", Sub.class.getName());
    assertNull(StoreEngines.placementOffReason(site(TIERED), table(null, sub), sub));
    ColumnFamilyDescriptor tieredDate = family("td", TieredDateTieredStoreEngine.class.getName());
    assertNull(StoreEngines.placementOffReason(site(TIERED), table(null, tieredDate), tieredDate));
    // Strata's placement is not configured on the site: nothing is lost unawares.
    ColumnFamilyDescriptor date = family("d", DATE);
    assertNull(StoreEngines.placementOffReason(site(null), table(null, date), date));
    // A family back on Strata's engine on a table that names another: placed.
    ColumnFamilyDescriptor back = family("b", TIERED);
    assertNull(StoreEngines.placementOffReason(site(TIERED), table(DATE, back), back));
  }
}
