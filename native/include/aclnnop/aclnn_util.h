/* Visibility macro of the aclnn operator headers. */
#ifndef ACLNNOP_ACLNN_UTIL_H_
#define ACLNNOP_ACLNN_UTIL_H_

#define ACLNN_API __attribute__((visibility("default")))

#endif /* ACLNNOP_ACLNN_UTIL_H_ */
