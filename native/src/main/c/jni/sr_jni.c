/*
 * JNI binding of the endpoint runtime for io.strata.rdma.verbs.NativeVerbs (hbase-rdma-rpc).
 *
 * Handles cross the boundary as jlong and are owned by Java objects that close them. Callbacks
 * run on the Java thread that called NativeVerbs.run (the transport's progress thread) and go to
 * its NativeCallbacks object; a message is passed as (region, offset, length) into direct
 * ByteBuffer views of the endpoint's registered regions that Java creates once per endpoint, so
 * no object is allocated per message. Errors become exceptions: no device ->
 * TransportUnavailableException, bad argument -> IllegalArgumentException, else IOException.
 * Nothing here aborts the JVM.
 */
#include <arpa/inet.h>
#include <jni.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "strata_rdma.h"

#define EXPORT __attribute__((visibility("default")))

static jmethodID m_on_message, m_on_close, m_on_request, m_on_established, m_on_released;

/* the NativeCallbacks of the progress thread this thread runs, if any */
static __thread JNIEnv *cb_env;
static __thread jobject cb_target;

static void throw_code(JNIEnv *env, int code, const char *msg) {
  const char *cls = "java/io/IOException";
  if (code == SR_ENODEV) cls = "io/strata/rdma/transport/TransportUnavailableException";
  else if (code == SR_EINVAL) cls = "java/lang/IllegalArgumentException";
  else if (code == SR_EMSGSIZE) cls = "io/strata/rdma/transport/MessageTooLargeException";
  jclass c = (*env)->FindClass(env, cls);
  if (c) (*env)->ThrowNew(env, c, msg);
}

static void throw_last(JNIEnv *env, int code) { throw_code(env, code, sr_last_error()); }

static void clear_callback_exception(JNIEnv *env) {
  if ((*env)->ExceptionCheck(env)) {
    (*env)->ExceptionDescribe(env); /* the Java side catches everything; this is a last resort */
    (*env)->ExceptionClear(env);
  }
}

static int to_sockaddr(JNIEnv *env, jstring host, jint port, struct sockaddr_storage *ss) {
  const char *h = (*env)->GetStringUTFChars(env, host, NULL);
  if (!h) return -1;
  memset(ss, 0, sizeof *ss);
  int ok = 0;
  struct sockaddr_in *in = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
  if (inet_pton(AF_INET, h, &in->sin_addr) == 1) {
    in->sin_family = AF_INET;
    in->sin_port = htons((uint16_t)port);
    ok = 1;
  } else if (inet_pton(AF_INET6, h, &in6->sin6_addr) == 1) {
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons((uint16_t)port);
    ok = 1;
  }
  if (!ok) {
    char msg[320];
    snprintf(msg, sizeof msg, "not a numeric IP address: %s", h);
    throw_code(env, SR_EINVAL, msg);
  }
  (*env)->ReleaseStringUTFChars(env, host, h);
  return ok ? 0 : -1;
}

static jstring host_of(JNIEnv *env, const struct sockaddr *sa, int *port) {
  char host[INET6_ADDRSTRLEN] = "";
  *port = 0;
  if (sa && sa->sa_family == AF_INET) {
    inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, host, sizeof host);
    *port = ntohs(((const struct sockaddr_in *)sa)->sin_port);
  } else if (sa && sa->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, host, sizeof host);
    *port = ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
  }
  return (*env)->NewStringUTF(env, host);
}

/* ---------------------------------------------------------------- callbacks */

static void cb_message(sr_ep *ep, void *user, const void *data, uint32_t len, int region,
                       uint32_t offset) {
  JNIEnv *env = cb_env;
  if (!env) return;
  (*env)->CallVoidMethod(env, cb_target, m_on_message, (jlong)(intptr_t)user,
                         (jlong)(intptr_t)ep, (jint)region, (jint)offset, (jint)len);
  clear_callback_exception(env);
}

static void cb_close(sr_ep *ep, void *user, int code, const char *cause) {
  JNIEnv *env = cb_env;
  if (!env) return;
  jstring c = cause ? (*env)->NewStringUTF(env, cause) : NULL;
  (*env)->CallVoidMethod(env, cb_target, m_on_close, (jlong)(intptr_t)user, c);
  clear_callback_exception(env);
  if (c) (*env)->DeleteLocalRef(env, c);
}

static void *cb_request(sr_listener *lst, void *luser, sr_ep *ep, const struct sockaddr *peer,
                        const void *pdata, uint32_t len) {
  JNIEnv *env = cb_env;
  if (!env) return NULL;
  int port;
  jstring host = host_of(env, peer, &port);
  jbyteArray pd = (*env)->NewByteArray(env, (jsize)len);
  if (pd && len) (*env)->SetByteArrayRegion(env, pd, 0, (jsize)len, (const jbyte *)pdata);
  jlong id = 0;
  if (host && pd)
    id = (*env)->CallLongMethod(env, cb_target, m_on_request, (jlong)(intptr_t)luser,
                                (jlong)(intptr_t)ep, host, (jint)port, pd);
  clear_callback_exception(env);
  if (host) (*env)->DeleteLocalRef(env, host);
  if (pd) (*env)->DeleteLocalRef(env, pd);
  if (id == 0) return NULL;
  sr_ep_retain(ep); /* the Java endpoint's reference, dropped by releaseEndpoint */
  return (void *)(intptr_t)id;
}

static void cb_established(sr_ep *ep, void *user) {
  JNIEnv *env = cb_env;
  if (!env) return;
  (*env)->CallVoidMethod(env, cb_target, m_on_established, (jlong)(intptr_t)user,
                         (jlong)(intptr_t)ep);
  clear_callback_exception(env);
}

static void cb_released(sr_ep *ep, void *user) {
  JNIEnv *env = cb_env;
  if (!env) return;
  (*env)->CallVoidMethod(env, cb_target, m_on_released, (jlong)(intptr_t)user);
  clear_callback_exception(env);
}

static const sr_callbacks callbacks = {cb_message, cb_close, cb_request, cb_established,
                                       cb_released};

/* ---------------------------------------------------------------- natives */

static jstring JNICALL n_probe(JNIEnv *env, jclass c, jstring device) {
  const char *d = device ? (*env)->GetStringUTFChars(env, device, NULL) : NULL;
  char buf[1024];
  int n = sr_probe_devices(d, buf, sizeof buf);
  if (d) (*env)->ReleaseStringUTFChars(env, device, d);
  if (n <= 0) {
    throw_code(env, SR_ENODEV, sr_last_error());
    return NULL;
  }
  return (*env)->NewStringUTF(env, buf);
}

static jlong JNICALL n_create(JNIEnv *env, jclass c, jstring device, jint eager, jint credits,
                              jint max_message, jint spin_us, jint send_timeout_ms,
                              jboolean no_cm) {
  sr_config cfg;
  sr_config_defaults(&cfg);
  const char *d = device ? (*env)->GetStringUTFChars(env, device, NULL) : NULL;
  cfg.device = d;
  cfg.eager_size = (uint32_t)eager;
  cfg.credits = (uint32_t)credits;
  cfg.max_message = (uint32_t)max_message;
  cfg.poll_spin_us = (uint32_t)spin_us;
  cfg.send_timeout_ms = (uint32_t)send_timeout_ms;
  sr_ctx *ctx = NULL;
  int rc = sr_ctx_create(&cfg, &callbacks, no_cm ? SR_CTX_NO_CM : 0, &ctx);
  if (d) (*env)->ReleaseStringUTFChars(env, device, d);
  if (rc) {
    throw_last(env, rc);
    return 0;
  }
  return (jlong)(intptr_t)ctx;
}

static void JNICALL n_run(JNIEnv *env, jclass c, jlong ctx, jobject target) {
  cb_env = env;
  cb_target = target;
  sr_ctx_run((sr_ctx *)(intptr_t)ctx);
  cb_env = NULL;
  cb_target = NULL;
}

static void JNICALL n_stop(JNIEnv *env, jclass c, jlong ctx) { sr_ctx_stop((sr_ctx *)(intptr_t)ctx); }

static void JNICALL n_destroy(JNIEnv *env, jclass c, jlong ctx) {
  sr_ctx_destroy((sr_ctx *)(intptr_t)ctx);
}

static jlong JNICALL n_live(JNIEnv *env, jclass c) { return sr_live_objects(); }

static jlong JNICALL n_listen(JNIEnv *env, jclass c, jlong ctx, jstring host, jint port,
                              jint backlog, jlong id) {
  struct sockaddr_storage ss;
  if (to_sockaddr(env, host, port, &ss)) return 0;
  sr_listener *l;
  int rc = sr_listen((sr_ctx *)(intptr_t)ctx, (struct sockaddr *)&ss, backlog,
                     (void *)(intptr_t)id, &l);
  if (rc) {
    throw_last(env, rc);
    return 0;
  }
  return (jlong)(intptr_t)l;
}

static jint JNICALL n_listener_port(JNIEnv *env, jclass c, jlong lst) {
  struct sockaddr_storage ss;
  sr_listener_addr((sr_listener *)(intptr_t)lst, &ss);
  return ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                  : ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void JNICALL n_close_listener(JNIEnv *env, jclass c, jlong lst) {
  sr_listener_close((sr_listener *)(intptr_t)lst);
}

static jlong JNICALL n_connect(JNIEnv *env, jclass c, jlong ctx, jstring host, jint port,
                               jbyteArray pdata, jint timeout_ms, jlong id) {
  struct sockaddr_storage ss;
  if (to_sockaddr(env, host, port, &ss)) return 0;
  uint8_t pd[64];
  jsize len = pdata ? (*env)->GetArrayLength(env, pdata) : 0;
  if (len > SR_MAX_PRIVATE_DATA) {
    char msg[128];
    snprintf(msg, sizeof msg, "private data of %d bytes: at most %d", (int)len,
             SR_MAX_PRIVATE_DATA);
    throw_code(env, SR_EINVAL, msg);
    return 0;
  }
  if (len) (*env)->GetByteArrayRegion(env, pdata, 0, len, (jbyte *)pd);
  sr_ep *ep = NULL;
  int rc = sr_connect((sr_ctx *)(intptr_t)ctx, (struct sockaddr *)&ss, pd, (uint32_t)len,
                      (uint32_t)timeout_ms, (void *)(intptr_t)id, &ep);
  if (rc) {
    throw_last(env, rc);
    return 0;
  }
  return (jlong)(intptr_t)ep;
}

static jint JNICALL n_max_message(JNIEnv *env, jclass c, jlong ep) {
  return (jint)sr_ep_max_message((sr_ep *)(intptr_t)ep);
}

static void JNICALL n_send_direct(JNIEnv *env, jclass c, jlong ep, jobject buf, jint pos,
                                  jint len) {
  char *src = (*env)->GetDirectBufferAddress(env, buf);
  if (!src) {
    throw_code(env, SR_EINVAL, "not a direct buffer");
    return;
  }
  void *dst;
  int rc = sr_ep_send_begin((sr_ep *)(intptr_t)ep, (uint32_t)len, &dst);
  if (rc == SR_OK) {
    memcpy(dst, src + pos, (size_t)len);
    rc = sr_ep_send_commit((sr_ep *)(intptr_t)ep);
  }
  if (rc) throw_last(env, rc);
}

static void JNICALL n_send_array(JNIEnv *env, jclass c, jlong ep, jbyteArray arr, jint off,
                                 jint len) {
  void *dst;
  int rc = sr_ep_send_begin((sr_ep *)(intptr_t)ep, (uint32_t)len, &dst);
  if (rc == SR_OK) {
    /* straight from the Java array into registered memory */
    (*env)->GetByteArrayRegion(env, arr, off, len, (jbyte *)dst);
    if ((*env)->ExceptionCheck(env)) {
      sr_ep_send_abort((sr_ep *)(intptr_t)ep);
      return;
    }
    rc = sr_ep_send_commit((sr_ep *)(intptr_t)ep);
  }
  if (rc) throw_last(env, rc);
}

/* Several buffers (direct ByteBuffers or byte arrays) as one message, gathered straight into
 * registered memory: a response's header and cell block cross with one copy. */
static jboolean JNICALL n_send_parts(JNIEnv *env, jclass c, jlong ep, jobjectArray parts,
                                     jintArray offs, jintArray lens, jint total,
                                     jint max_wait_ms) {
  jint n = (*env)->GetArrayLength(env, parts);
  jint off[16], len[16];
  if (n > 16) {
    throw_code(env, SR_EINVAL, "more than 16 parts in one message");
    return JNI_FALSE;
  }
  (*env)->GetIntArrayRegion(env, offs, 0, n, off);
  (*env)->GetIntArrayRegion(env, lens, 0, n, len);
  if ((*env)->ExceptionCheck(env)) return JNI_FALSE;
  void *dst;
  /* a negative wait: as long as the send timeout allows */
  int rc = sr_ep_send_begin_wait((sr_ep *)(intptr_t)ep, (uint32_t)total,
                                 max_wait_ms < 0 ? UINT32_MAX : (uint32_t)max_wait_ms, &dst);
  if (rc == SR_EAGAIN) return JNI_FALSE;
  if (rc) {
    throw_last(env, rc);
    return JNI_FALSE;
  }
  char *p = dst;
  for (jint i = 0; i < n; i++) {
    jobject part = (*env)->GetObjectArrayElement(env, parts, i);
    char *src = part ? (*env)->GetDirectBufferAddress(env, part) : NULL;
    if (src) {
      memcpy(p, src + off[i], (size_t)len[i]);
    } else if (part) {
      (*env)->GetByteArrayRegion(env, (jbyteArray)part, off[i], len[i], (jbyte *)p);
    }
    if (part) (*env)->DeleteLocalRef(env, part);
    if (!part || (*env)->ExceptionCheck(env)) {
      sr_ep_send_abort((sr_ep *)(intptr_t)ep);
      if (!(*env)->ExceptionCheck(env)) throw_code(env, SR_EINVAL, "null message part");
      return JNI_FALSE;
    }
    p += len[i];
  }
  rc = sr_ep_send_commit((sr_ep *)(intptr_t)ep);
  if (rc) throw_last(env, rc);
  return rc == SR_OK;
}

static void JNICALL n_close_ep(JNIEnv *env, jclass c, jlong ep) { sr_ep_close((sr_ep *)(intptr_t)ep); }

static void JNICALL n_release_ep(JNIEnv *env, jclass c, jlong ep) {
  sr_ep_release((sr_ep *)(intptr_t)ep);
}

static jboolean JNICALL n_is_open(JNIEnv *env, jclass c, jlong ep) {
  return sr_ep_is_open((sr_ep *)(intptr_t)ep) ? JNI_TRUE : JNI_FALSE;
}

static jobject JNICALL n_region(JNIEnv *env, jclass c, jlong ep, jint region) {
  void *base;
  uint32_t size;
  int rc = sr_ep_region((sr_ep *)(intptr_t)ep, region, &base, &size);
  if (rc) {
    throw_last(env, rc);
    return NULL;
  }
  return (*env)->NewDirectByteBuffer(env, base, (jlong)size);
}

static void JNICALL n_stats(JNIEnv *env, jclass c, jlong ep, jlongArray out) {
  sr_ep_stats s;
  sr_ep_get_stats((sr_ep *)(intptr_t)ep, &s);
  jlong v[7] = {(jlong)s.msgs_sent,   (jlong)s.bytes_sent,  (jlong)s.msgs_received,
                (jlong)s.bytes_received, (jlong)s.rdma_writes, (jlong)s.credit_msgs,
                (jlong)s.credit_waits};
  (*env)->SetLongArrayRegion(env, out, 0, 7, v);
}

static const JNINativeMethod methods[] = {
    {"probe", "(Ljava/lang/String;)Ljava/lang/String;", (void *)n_probe},
    {"createContext", "(Ljava/lang/String;IIIIIZ)J", (void *)n_create},
    {"run", "(JLio/strata/rdma/verbs/NativeCallbacks;)V", (void *)n_run},
    {"stop", "(J)V", (void *)n_stop},
    {"destroyContext", "(J)V", (void *)n_destroy},
    {"liveObjects", "()J", (void *)n_live},
    {"listen", "(JLjava/lang/String;IIJ)J", (void *)n_listen},
    {"listenerPort", "(J)I", (void *)n_listener_port},
    {"closeListener", "(J)V", (void *)n_close_listener},
    {"connect", "(JLjava/lang/String;I[BIJ)J", (void *)n_connect},
    {"sendDirect", "(JLjava/nio/ByteBuffer;II)V", (void *)n_send_direct},
    {"sendArray", "(J[BII)V", (void *)n_send_array},
    {"maxMessage", "(J)I", (void *)n_max_message},
    {"sendParts", "(J[Ljava/lang/Object;[I[III)Z", (void *)n_send_parts},
    {"closeEndpoint", "(J)V", (void *)n_close_ep},
    {"releaseEndpoint", "(J)V", (void *)n_release_ep},
    {"isOpen", "(J)Z", (void *)n_is_open},
    {"region", "(JI)Ljava/nio/ByteBuffer;", (void *)n_region},
    {"stats", "(J[J)V", (void *)n_stats},
};

EXPORT jint JNI_OnLoad(JavaVM *vm, void *reserved) {
  JNIEnv *env;
  if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  jclass nv = (*env)->FindClass(env, "io/strata/rdma/verbs/NativeVerbs");
  jclass cb = (*env)->FindClass(env, "io/strata/rdma/verbs/NativeCallbacks");
  if (!nv || !cb) return JNI_ERR; /* NoClassDefFoundError pending: a clear load failure */
  if ((*env)->RegisterNatives(env, nv, methods, sizeof methods / sizeof methods[0]) != 0)
    return JNI_ERR;
  m_on_message = (*env)->GetMethodID(env, cb, "onMessage", "(JJIII)V");
  m_on_close = (*env)->GetMethodID(env, cb, "onClose", "(JLjava/lang/String;)V");
  m_on_request =
      (*env)->GetMethodID(env, cb, "onConnectRequest", "(JJLjava/lang/String;I[B)J");
  m_on_established = (*env)->GetMethodID(env, cb, "onEstablished", "(JJ)V");
  m_on_released = (*env)->GetMethodID(env, cb, "onReleased", "(J)V");
  if (!m_on_message || !m_on_close || !m_on_request || !m_on_established || !m_on_released)
    return JNI_ERR;
  return JNI_VERSION_1_8;
}
