/* A Vulkan instance layer that renames Mesa's "llvmpipe" device to "lavapipe".
 *
 * IREE runtimes before 3.12 hide every Vulkan device whose name starts with
 * "llvmpipe" (iree_hal_vulkan_is_device_visible in
 * runtime/src/iree/hal/drivers/vulkan/vulkan_driver.cc), so on a machine whose only
 * Vulkan device is Mesa's software rasterizer they list it but will not use it. With
 * this layer enabled (VK_LAYER_PATH + VK_INSTANCE_LAYERS, see vulkan_layer.py) they do.
 *
 * The next layer's entry points are resolved once, in vkCreateInstance/vkCreateDevice:
 * resolving them lazily through the instance would come back into this layer.
 */
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

static VkInstance instance;
static PFN_vkGetInstanceProcAddr next_gipa;
static PFN_vkGetDeviceProcAddr next_gdpa;
static PFN_vkGetPhysicalDeviceProperties next_props;
static PFN_vkGetPhysicalDeviceProperties2 next_props2;
static PFN_vkGetPhysicalDeviceProperties2KHR next_props2_khr;

static void rename_device(VkPhysicalDeviceProperties *p) {
  if (strncmp(p->deviceName, "llvmpipe", 8) == 0) memcpy(p->deviceName, "lavapipe", 8);
}

static void VKAPI_CALL props(VkPhysicalDevice d, VkPhysicalDeviceProperties *p) {
  next_props(d, p);
  rename_device(p);
}

static void VKAPI_CALL props2(VkPhysicalDevice d, VkPhysicalDeviceProperties2 *p) {
  next_props2(d, p);
  rename_device(&p->properties);
}

static void VKAPI_CALL props2_khr(VkPhysicalDevice d, VkPhysicalDeviceProperties2 *p) {
  next_props2_khr(d, p);
  rename_device(&p->properties);
}

/* The loader's link to the next layer in a create-info's pNext chain. */
#define NEXT_LINK(type, chain_type, info)                                               \
  ({                                                                                  \
    type *link = (type *)(info)->pNext;                                               \
    while (link && !(link->sType == chain_type && link->function == VK_LAYER_LINK_INFO)) \
      link = (type *)link->pNext;                                                     \
    link;                                                                             \
  })

static VkResult VKAPI_CALL create_instance(const VkInstanceCreateInfo *info,
                                           const VkAllocationCallbacks *alloc, VkInstance *out) {
  VkLayerInstanceCreateInfo *link =
      NEXT_LINK(VkLayerInstanceCreateInfo, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO, info);
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
  VkResult result = create(info, alloc, out);
  if (result != VK_SUCCESS) return result;
  instance = *out;
  next_gipa = gipa;
  next_props = (PFN_vkGetPhysicalDeviceProperties)gipa(*out, "vkGetPhysicalDeviceProperties");
  next_props2 = (PFN_vkGetPhysicalDeviceProperties2)gipa(*out, "vkGetPhysicalDeviceProperties2");
  next_props2_khr =
      (PFN_vkGetPhysicalDeviceProperties2KHR)gipa(*out, "vkGetPhysicalDeviceProperties2KHR");
  return VK_SUCCESS;
}

static VkResult VKAPI_CALL create_device(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                         const VkAllocationCallbacks *alloc, VkDevice *out) {
  VkLayerDeviceCreateInfo *link =
      NEXT_LINK(VkLayerDeviceCreateInfo, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, info);
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(instance, "vkCreateDevice");
  VkResult result = create(physical, info, alloc, out);
  if (result == VK_SUCCESS) next_gdpa = gdpa;
  return result;
}

static PFN_vkVoidFunction VKAPI_CALL get_device_proc_addr(VkDevice device, const char *name) {
  if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)get_device_proc_addr;
  return next_gdpa ? next_gdpa(device, name) : NULL;
}

static PFN_vkVoidFunction VKAPI_CALL get_instance_proc_addr(VkInstance inst, const char *name) {
  if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)get_instance_proc_addr;
  if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)create_instance;
  if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)create_device;
  if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)get_device_proc_addr;
  if (!strcmp(name, "vkGetPhysicalDeviceProperties")) return (PFN_vkVoidFunction)props;
  if (!strcmp(name, "vkGetPhysicalDeviceProperties2")) return (PFN_vkVoidFunction)props2;
  if (!strcmp(name, "vkGetPhysicalDeviceProperties2KHR")) return (PFN_vkVoidFunction)props2_khr;
  return next_gipa ? next_gipa(inst, name) : NULL;
}

VK_LAYER_EXPORT VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(
    VkNegotiateLayerInterface *version) {
  if (version->loaderLayerInterfaceVersion > 2) version->loaderLayerInterfaceVersion = 2;
  version->pfnGetInstanceProcAddr = get_instance_proc_addr;
  version->pfnGetDeviceProcAddr = get_device_proc_addr;
  version->pfnGetPhysicalDeviceProcAddr = NULL;
  return VK_SUCCESS;
}
