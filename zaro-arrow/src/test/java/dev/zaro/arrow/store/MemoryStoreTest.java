package dev.zaro.arrow.store;

import java.util.Map;

class MemoryStoreTest extends AbstractStoreTest {
  @Override
  protected Store createStore(Map<String, byte[]> contents) {
    MemoryStore store = new MemoryStore();
    contents.forEach(store::put);
    return store;
  }
}
