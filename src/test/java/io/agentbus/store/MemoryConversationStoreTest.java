package io.agentbus.store;

/** The contract on the {@code memory} store. */
class MemoryConversationStoreTest extends ConversationStoreContract {

  @Override
  protected StoreOptions options() {
    return new StoreOptions().setType(StoreOptions.Type.MEMORY);
  }

  @Override
  protected boolean durable() {
    return false;
  }
}
